import type { Platform } from '@/lib/shared/integrations/platforms';
import { googleConfig } from '@/lib/server/connectors/google/config';
import { bearer, expiresAtOf, form, requestJson } from '@/lib/server/connectors/http';
import { PlatformError, retryableIf5xx } from '@/lib/server/connectors/errors';
import type { OAuthAuth, Session } from '@/lib/server/connectors/types';
import { log } from '@/lib/server/log';

/** Google OAuth 2.0 (authorization code, offline, consent), shared by Google Ads and BigQuery. */

/** A Google login: the refresh token is all it takes to get an access token. */
export interface GoogleOAuthCredential {
  type: 'google_oauth';
  refreshToken: string;
}

function tokenError(platform: Platform, status: number, body: Record<string, unknown>): PlatformError {
  // invalid_grant: the refresh token was revoked, expired, unused for 6 months or past the limit.
  if (body.error === 'invalid_grant') {
    return new PlatformError(platform, 'needs_reauth', 'Google no longer accepts this login: it was revoked or expired.');
  }
  log.warn({ component: 'platforms', platform, status, platformError: body.error }, 'Google refused a token request');
  return new PlatformError(platform, retryableIf5xx(status), 'Google refused the request. Try connecting again.');
}

async function userEmail(platform: Platform, accessToken: string): Promise<string> {
  const { status, body } = await requestJson(platform, googleConfig().userInfoUrl, { headers: bearer(accessToken) });
  if (status !== 200) return 'Google account';
  return String(body.email ?? body.name ?? 'Google account');
}

/** The consent flow of one Google product, which differ only in the scopes they ask for. */
export function googleOAuth(platform: Platform, scopes: readonly string[]): OAuthAuth<GoogleOAuthCredential> {
  return {
    // Its own scopes: openid, email and profile are asked of every Google login.
    scopes: () => scopes,
    authorizeUrl(state, redirectUri) {
      const config = googleConfig();
      const url = new URL(config.authorizeUrl);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: ['openid', 'email', 'profile', ...scopes].join(' '),
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
      }).toString();
      return url.toString();
    },
    async exchangeCode(code, redirectUri) {
      const config = googleConfig();
      const { status, body } = await requestJson(
        platform,
        config.tokenUrl,
        form({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: config.clientId,
          client_secret: config.clientSecret,
        }),
      );
      if (status !== 200) throw tokenError(platform, status, body);
      if (typeof body.refresh_token !== 'string') {
        throw new PlatformError(platform, 'invalid', 'Google did not grant offline access. Connect again and allow every permission.');
      }
      return {
        credential: { type: 'google_oauth', refreshToken: body.refresh_token },
        accountName: await userEmail(platform, String(body.access_token)),
      };
    },
  };
}

/** A fresh access token for a Google login. */
export async function googleRefresh(platform: Platform, credential: GoogleOAuthCredential): Promise<Session<GoogleOAuthCredential>> {
  const config = googleConfig();
  const { status, body } = await requestJson(
    platform,
    config.tokenUrl,
    form({
      grant_type: 'refresh_token',
      refresh_token: credential.refreshToken,
      client_id: config.clientId,
      client_secret: config.clientSecret,
    }),
  );
  if (status !== 200) throw tokenError(platform, status, body);
  return { accessToken: String(body.access_token), rotated: null, expiresAt: expiresAtOf(body.expires_in) };
}
