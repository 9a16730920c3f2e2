/**
 * Navigation rules of docs/PRODUCT.md §3 as pure functions, shared by middleware.ts (server) and the
 * route guard in _app (client).
 */
import { RETURN_PATHS, START_ROUTES } from '@/lib/shared/integrations/platforms';
import { isDocumentId } from '@/lib/shared/ids';

export const CALLBACK_PARAM = 'callback';
export const CALLBACK_COOKIE = 'callbackUrl';
/** Set by an invitation link (`{orgId}/{invitationId}`) so the invitee comes back to it after signing in. */
export const PENDING_INVITATION_COOKIE = 'pendingInvitation';

const AUTH_PAGES = new Set(['/login', '/signUp', '/forgotPassword']);
/** The organization's pages by their first segment; the consents' start routes (GoogleAds, MetaAds, MicrosoftAds) come from CATALOGUE. */
const ORG_SECTIONS = [
  'app',
  'connection',
  'conversion',
  'createConnection',
  'createConversion',
  'destination',
  'source',
  ...START_ROUTES,
  'notifications',
  'payment',
  'reconciliation',
  'settings',
  'subscription',
  'acceptInvitation',
].join('|');
const ORG_PATH = new RegExp(`^/([^/]+)/(?:${ORG_SECTIONS})(?:/|$)`);
const ACCEPT_INVITATION_PATH = /^\/[^/]+\/acceptInvitation\/[^/]+\/?$/;
const FLOW_CLEARING_PATH = /^\/[^/]+\/(?:connection|conversion|app)\/?$/;

/** Global pages that need a signed-in user; with the organization pages, all the guard looks after. */
const GUARDED_GLOBAL_PAGES = new Set([
  '/organizations',
  '/onboarding',
  '/settings',
  '/payments',
  // Where the ad platforms send a user back after consent.
  ...RETURN_PATHS,
  '/SourceSettings',
  '/subscription',
  '/subscription/success',
  '/subscription/failure',
]);

export const isAuthPage = (path: string) => AUTH_PAGES.has(path);
export const isAcceptInvitationPage = (path: string) => ACCEPT_INVITATION_PATH.test(path);

/**
 * Pages a signed-out visitor may open: the sign-in pages, invitation links (they store their cookie,
 * then send the visitor to sign in) and anything that is no page of ours (it is a 404 for everyone).
 */
export const isPublicPage = (path: string) =>
  isAuthPage(path) || isAcceptInvitationPage(path) || !(GUARDED_GLOBAL_PAGES.has(path) || ORG_PATH.test(path));

/** The wanted page is remembered as a callback, except the sign-in pages and invitations. */
export const isRememberedAsCallback = (path: string) => !isAuthPage(path) && !isAcceptInvitationPage(path);

/** Whether a path is an organization's page (`/{orgId}/{section}…`), whatever its id looks like. */
export const isOrganizationPath = (path: string) => ORG_PATH.test(path);

/**
 * The organization id of an organization-scoped path, else null; also null when the segment is not
 * valid percent-encoding or not an id by the one id rule (so no caller ever throws on a typed URL).
 */
export function orgIdOfPath(path: string): string | null {
  const match = ORG_PATH.exec(path);
  if (!match) return null;
  try {
    const id = decodeURIComponent(match[1]!);
    return isDocumentId(id) ? id : null;
  } catch {
    return null;
  }
}

/** Entering /connection, /conversion or /app clears the remembered flow keys. */
export const clearsFlowKeys = (path: string) => FLOW_CLEARING_PATH.test(path);

const SITE = 'https://signalbridge.invalid';
/** Backslashes, whitespace and control characters: URL parsers drop or reinterpret them. */
const AMBIGUOUS_CHARACTERS = /[\\\s\u0000-\u001f\u007f]/;

/** A path that resolves to this site from any page: one leading slash, then no slash or backslash. */
const isSameSitePath = (path: string) => path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/\\');

/**
 * A callback is only ever a path on this site. The raw value must look like one, and so must what
 * it normalises to: `/.//evil.example/` normalises to the scheme-relative `//evil.example/`.
 */
export function safeCallback(value: unknown): string | null {
  if (typeof value !== 'string' || !isSameSitePath(value) || AMBIGUOUS_CHARACTERS.test(value)) return null;
  try {
    const url = new URL(value, SITE);
    const path = `${url.pathname}${url.search}`;
    if (url.origin !== SITE || !isSameSitePath(path) || new URL(path, SITE).origin !== SITE) return null;
    return isRememberedAsCallback(url.pathname) ? path : null;
  } catch {
    return null;
  }
}

/** The invitation a pending-invitation cookie points at, or null when it is missing or malformed. */
export function parsePendingInvitation(value: unknown): { orgId: string; invitationId: string } | null {
  if (typeof value !== 'string') return null;
  const match = /^([A-Za-z0-9_-]{1,128})\/([A-Za-z0-9_-]{1,128})$/.exec(value);
  return match ? { orgId: match[1]!, invitationId: match[2]! } : null;
}

export function pendingInvitationPath(value: unknown): string | null {
  const pending = parsePendingInvitation(value);
  return pending ? `/${pending.orgId}/acceptInvitation/${pending.invitationId}` : null;
}

export interface SessionRouteInput {
  /** The path without the query string. */
  path: string;
  /** The path with its query string, as it would be remembered. */
  fullPath: string;
  signedIn: boolean;
  /** The saved callback (query parameter or cookie), already checked with safeCallback. */
  callback: string | null;
  /** The invitation page to come back to (pendingInvitationPath of the cookie). */
  pendingInvitation?: string | null;
}

/** Where the signed-in state alone sends a request, or null to stay. */
export function sessionRedirect({ path, fullPath, signedIn, callback, pendingInvitation }: SessionRouteInput): string | null {
  if (!signedIn) {
    if (path === '/') return '/login';
    if (isPublicPage(path)) return null;
    return `/login?${CALLBACK_PARAM}=${encodeURIComponent(fullPath)}`;
  }
  if (isAuthPage(path)) return pendingInvitation ?? callback ?? '/organizations';
  if (path === '/') return '/organizations';
  return null;
}

/** Where a user goes once their organizations are loaded: one → it, several → the list, none → onboarding. */
export function organizationsDestination(organizationIds: string[]): string {
  if (organizationIds.length === 1) return `/${encodeURIComponent(organizationIds[0]!)}/connection`;
  return organizationIds.length > 1 ? '/organizations' : '/onboarding';
}
