/**
 * What the sandbox's OAuth platforms (Google, Meta, Microsoft) hold in memory, shared by their
 * modules: the registered redirect URIs, consent codes, refresh and access tokens, and which
 * platforms had every login revoked. Restarting the sandbox forgets every login.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
// The redirect URIs registered with each platform: the app's return routes, nothing else.
import { RETURN_PATHS, type OAuthProvider } from '@/lib/shared/integrations/platforms';
import { createAdData } from '@/sandbox/adData';
import { createConversionLedger } from '@/sandbox/conversions';
import { createMatchLedger } from '@/sandbox/matching';
import { createReporting } from '@/sandbox/reporting';

/** Each OAuth provider of the catalogue is played by a fake of sandbox/fakes.ts (google, meta_ads, microsoft_ads). */
export type Provider = OAuthProvider;

export interface Grant {
  provider: Provider;
  scope: string;
  offline: boolean;
  /** Issued to a service account's signed assertion (Google), not to a person's consent. */
  serviceAccount?: boolean;
}

export interface Code extends Grant {
  clientId: string;
  redirectUri: string;
  expiresAt: number;
}

export interface AccessToken extends Grant {
  expiresAt: number;
  refreshToken: string | null;
}

/** A random secret with a platform's prefix (`ya29.`, `EAAB`, …), as its tokens and codes look. */
export const token = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;

export type SandboxStore = ReturnType<typeof createStore>;

/** An empty store whose redirect URIs are the return routes of each of the app's origins. */
export function createStore(appUrls: readonly string[]) {
  const registered = new Set(appUrls.flatMap((appUrl) => RETURN_PATHS.map((path) => `${appUrl.replace(/\/$/, '')}${path}`)));
  const codes = new Map<string, Code>();
  const usedCodes = new Set<string>();
  const refreshTokens = new Map<string, Grant>();
  const accessTokens = new Map<string, AccessToken>();
  const revokedProviders = new Set<Provider>();

  /**
   * Access tokens handed out per login (a consent's grant, kept across Microsoft's rotations; a service
   * account by its email): how often the app refreshed each. A login the app caches is refreshed about
   * once an hour, not once per job.
   */
  const refreshCounts = new Map<Grant | string, { provider: Provider; count: number }>();
  const refreshes = {
    note(login: Grant | string, provider: Provider) {
      const entry = refreshCounts.get(login) ?? { provider, count: 0 };
      entry.count += 1;
      refreshCounts.set(login, entry);
    },
    /** Refreshes and the logins they were for, of one provider or all. */
    count(provider?: Provider): { refreshes: number; logins: number } {
      const entries = [...refreshCounts.values()].filter((entry) => !provider || entry.provider === provider);
      return { refreshes: entries.reduce((sum, entry) => sum + entry.count, 0), logins: entries.length };
    },
    reset: () => refreshCounts.clear(),
  };

  function issue(grant: Grant, refreshToken: string | null, ttlSeconds: number) {
    const accessToken = token(grant.provider === 'google' ? 'ya29.' : grant.provider === 'meta' ? 'EAAB' : 'EwB');
    accessTokens.set(accessToken, { ...grant, refreshToken, expiresAt: Date.now() + ttlSeconds * 1000 });
    return accessToken;
  }

  /**
   * Every person's login to a platform dies, as when they remove the app's access. A service
   * account's tokens are no person's grant and live on, unless `serviceAccounts` says otherwise.
   */
  function revokeAll(provider: Provider, { serviceAccounts = false }: { serviceAccounts?: boolean } = {}) {
    const dies = (grant: Grant) => grant.provider === provider && (serviceAccounts || !grant.serviceAccount);
    for (const [key, grant] of refreshTokens) if (dies(grant)) refreshTokens.delete(key);
    for (const [key, grant] of accessTokens) if (dies(grant)) accessTokens.delete(key);
    revokedProviders.add(provider);
  }

  /** Every access token of a provider handed out so far expires now (its logins live: a refresh works). */
  function expireAccessTokens(provider: Provider) {
    for (const found of accessTokens.values()) if (found.provider === provider) found.expiresAt = Date.now() - 1;
  }

  function bearerToken(req: IncomingMessage, url: URL, provider: Provider): AccessToken | null {
    const header = req.headers.authorization ?? '';
    const value = header.startsWith('Bearer ') ? header.slice(7) : provider === 'meta' ? (url.searchParams.get('access_token') ?? '') : '';
    const found = accessTokens.get(value);
    if (!found || found.provider !== provider || found.expiresAt < Date.now()) return null;
    return found;
  }

  /** A code is good once, for the client and redirect URI it was issued to, for ten minutes. */
  function redeem(code: string, provider: Provider, clientId: string, redirectUri: string): Code | 'used' | 'mismatch' | null {
    if (usedCodes.has(code)) return 'used';
    const found = codes.get(code);
    if (!found || found.provider !== provider || found.expiresAt < Date.now()) return null;
    codes.delete(code);
    usedCodes.add(code);
    if (found.clientId !== clientId || found.redirectUri !== redirectUri) return 'mismatch';
    return found;
  }

  const conversions = createConversionLedger();
  return {
    /** The sandbox's own origin, known once its server listens (consent forms and token URIs name it). */
    base: '',
    registered,
    /** Conversions received by Meta, Google and Microsoft, and their failure switches. */
    conversions,
    /** What Meta, Google and Microsoft report they received and attributed of those, with their switchable imperfections. */
    reporting: createReporting(conversions),
    /** What Meta, Google and Microsoft matched of the identifiers they received, by their own rules (sandbox/matching.ts). */
    matches: createMatchLedger(),
    /** Synthetic ad performance every account reports (sandbox/adData.ts). */
    adData: createAdData(),
    codes,
    refreshTokens,
    accessTokens,
    revokedProviders,
    refreshes,
    issue,
    revokeAll,
    expireAccessTokens,
    bearerToken,
    redeem,
  };
}

/** What a platform's fake adds to the sandbox's one server: the paths it answers, and how. */
export interface SandboxPlatform {
  owns: (path: string) => boolean;
  handle: (req: IncomingMessage, res: ServerResponse, url: URL) => unknown;
  /** A destination's section of /__sandbox/destinations: what the app's syncs wrote to it. */
  destinations?: () => string;
}
