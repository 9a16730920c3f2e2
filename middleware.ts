import { NextResponse, type NextRequest } from 'next/server';
import {
  CALLBACK_COOKIE,
  CALLBACK_PARAM,
  PENDING_INVITATION_COOKIE,
  pendingInvitationPath,
  isAcceptInvitationPage,
  isAuthPage,
  isOrganizationPath,
  isRememberedAsCallback,
  orgIdOfPath,
  safeCallback,
  sessionRedirect,
} from '@/lib/shared/navigation';
import { hasActiveSubscription, requiresSubscription } from '@/lib/shared/billing/gate';
import { publicConfig } from '@/lib/shared/config';
import { adminAuth } from '@/lib/server/firebaseAdmin';
import { SESSION_COOKIE } from '@/lib/server/http/authenticate';
import { pageScripts } from '@/lib/server/http/pageScripts';
import { securityHeaders } from '@/lib/server/http/securityHeaders';
import { toOrganizationDocument } from '@/lib/server/repos/organizationDocument';
import { getOrganizationWithMembership } from '@/lib/server/repos/organizations';
import { isSuperAdmin } from '@/lib/server/repos/users';

async function sessionUid(request: NextRequest): Promise<string | null> {
  const cookie = request.cookies.get(SESSION_COOKIE)?.value;
  if (!cookie) return null;
  try {
    // Revoked sessions are rejected.
    return (await adminAuth().verifySessionCookie(cookie, true)).uid;
  } catch {
    return null;
  }
}

/**
 * Where an organization page sends its visitor: members (and super admins) enter; anyone else goes
 * to their list; without a subscription, or when the check fails, to the subscription page.
 */
async function organizationGate(orgId: string, uid: string, path: string): Promise<string | null> {
  const subscriptionPage = `/${encodeURIComponent(orgId)}/subscription`;
  try {
    const { organization, role } = await getOrganizationWithMembership(orgId, uid);
    if (!organization || (role === null && !(await isSuperAdmin(uid)))) return '/organizations';
    if (!requiresSubscription(path)) return null;
    return hasActiveSubscription(toOrganizationDocument(orgId, organization).subscription) ? null : subscriptionPage;
  } catch (error) {
    console.error('[middleware] organization check failed', error);
    return requiresSubscription(path) ? subscriptionPage : null;
  }
}

/** An organization page whose id is malformed (bad %-encoding, `__x__`, `..`) is treated like a missing organization. */
async function pageGate(pathname: string, uid: string): Promise<string | null> {
  const orgId = orgIdOfPath(pathname);
  return orgId ? organizationGate(orgId, uid, pathname) : '/organizations';
}

/** The navigation rules of docs/PRODUCT.md §3 for full page loads; RouteGuard applies them in the browser. */
async function navigate(request: NextRequest): Promise<NextResponse> {
  // Client-side transitions (and prefetches, which would cache a redirect) are RouteGuard's.
  if (request.headers.has('x-nextjs-data')) return NextResponse.next();
  const { pathname, search } = request.nextUrl;
  // The error pages, asked for by name, are open to anyone.
  if (pathname === '/404' || pathname === '/500') return NextResponse.next();
  const uid = await sessionUid(request);
  const callback =
    safeCallback(request.nextUrl.searchParams.get(CALLBACK_PARAM)) ?? safeCallback(request.cookies.get(CALLBACK_COOKIE)?.value);
  const redirect = sessionRedirect({
    path: pathname,
    fullPath: `${pathname}${search}`,
    signedIn: Boolean(uid),
    callback,
    pendingInvitation: pendingInvitationPath(request.cookies.get(PENDING_INVITATION_COOKIE)?.value),
  });

  if (redirect) {
    const response = NextResponse.redirect(new URL(redirect, request.url));
    if (!uid && isRememberedAsCallback(pathname)) {
      response.cookies.set(CALLBACK_COOKIE, `${pathname}${search}`, { path: '/', sameSite: 'lax' });
    }
    if (uid && isAuthPage(pathname)) response.cookies.delete(CALLBACK_COOKIE);
    return response;
  }

  const gate = uid && isOrganizationPath(pathname) && !isAcceptInvitationPage(pathname) ? await pageGate(pathname, uid) : null;
  return gate ? NextResponse.redirect(new URL(gate, request.url)) : NextResponse.next();
}

/** Every page response carries the Content-Security-Policy (and, served over https, HSTS) of lib/server/http/securityHeaders.ts. */
export async function middleware(request: NextRequest) {
  const response = await navigate(request);
  const headers = securityHeaders({
    nodeEnv: process.env.NODE_ENV,
    appUrl: process.env.APP_URL,
    firebaseAuthDomain: publicConfig.firebase.authDomain,
    authEmulatorUrl: publicConfig.useEmulators ? publicConfig.authEmulatorUrl : null,
    firestoreEmulatorHost: publicConfig.useEmulators ? publicConfig.firestoreEmulatorHost : null,
    billingApiUrl: publicConfig.billingApiUrl,
    intercom: Boolean(publicConfig.intercomAppId),
    scriptHashes: pageScripts().hashesFor(request.nextUrl.pathname),
  });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  runtime: 'nodejs',
  // Pages only: not the API (it authenticates itself), not Next's assets or public files.
  matcher: ['/((?!api/|_next/|favicon.svg).*)'],
};
