import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { accountUrn, encodedUrn, idOf, linkedin, restliQuery } from '@/lib/server/connectors/linkedin_ads/api';
import { linkedinConfig } from '@/lib/server/connectors/linkedin_ads/config';
import { linkedinCounted } from '@/lib/server/connectors/linkedin_ads/counted';
import { linkedinDelivery } from '@/lib/server/connectors/linkedin_ads/delivery';
import { linkedinAdsError } from '@/lib/server/connectors/linkedin_ads/errors';
import { linkedinReport } from '@/lib/server/connectors/linkedin_ads/report';
import { expiresAtOf, form, requestJson } from '@/lib/server/connectors/http';
import type { Connector } from '@/lib/server/connectors/types';

/** LinkedIn's OAuth 2.0 (three-legged, with refresh tokens) and the versioned Marketing API (config.ts pins the version header). */

/** A LinkedIn login: its refresh token, which lives a year from the consent (LinkedIn does not rotate it). */
export interface LinkedInCredential {
  type: 'linkedin';
  refreshToken: string;
}

async function token(values: Record<string, string>) {
  const config = linkedinConfig();
  const { status, body } = await requestJson(
    'linkedin_ads',
    `${config.oauthUrl}/accessToken`,
    form({ client_id: config.clientId, client_secret: config.clientSecret, ...values }),
  );
  if (status !== 200) throw linkedinAdsError(status, body);
  return {
    accessToken: String(body.access_token),
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : (values.refresh_token ?? ''),
    expiresAt: expiresAtOf(body.expires_in),
  };
}

/** The ad accounts the member can reach (`adAccounts?q=search`), active or not, with their currencies. */
async function accountsOf(accessToken: string): Promise<AdAccount[]> {
  const accounts: AdAccount[] = [];
  let pageToken: string | null = null;
  do {
    const body = await linkedin(
      accessToken,
      `adAccounts?${restliQuery({ q: 'search', pageSize: '1000', ...(pageToken ? { pageToken: encodeURIComponent(pageToken) } : {}) })}`,
    );
    for (const account of (body.elements as Array<{ id?: number | string; name?: string; currency?: string }> | undefined) ?? []) {
      if (account.id === undefined) continue;
      accounts.push({ id: String(account.id), name: account.name ?? String(account.id), currency: account.currency ?? null });
    }
    const next = (body.metadata as { nextPageToken?: unknown } | undefined)?.nextPageToken;
    pageToken = typeof next === 'string' && next ? next : null;
  } while (pageToken);
  return accounts;
}

export const linkedinAds: Connector<LinkedInCredential> = {
  id: 'linkedin_ads',
  auth: {
    oauth: {
      scopes: () => linkedinConfig().scope.split(' '),
      authorizeUrl(state, redirectUri) {
        const config = linkedinConfig();
        const url = new URL(`${config.oauthUrl}/authorization`);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: config.clientId,
          redirect_uri: redirectUri,
          state,
          scope: config.scope,
        }).toString();
        return url.toString();
      },
      async exchangeCode(code, redirectUri) {
        const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
        if (!tokens.refreshToken)
          throw linkedinAdsError(400, { message: 'LinkedIn gave no refresh token: the app must be enabled for refresh tokens.' });
        const accounts = await accountsOf(tokens.accessToken);
        // The ad scopes do not read the member's profile: the login is named after its first ad account.
        return { credential: { type: 'linkedin', refreshToken: tokens.refreshToken }, accountName: accounts[0]?.name ?? 'LinkedIn Ads' };
      },
    },
  },
  async openSession(credential) {
    const tokens = await token({ grant_type: 'refresh_token', refresh_token: credential.refreshToken });
    const rotated =
      tokens.refreshToken && tokens.refreshToken !== credential.refreshToken
        ? { type: 'linkedin' as const, refreshToken: tokens.refreshToken }
        : null;
    return { accessToken: tokens.accessToken, rotated, expiresAt: tokens.expiresAt };
  },
  listAccounts: (session) => accountsOf(session.accessToken),
  async listTargets(session, account) {
    const body = await linkedin(
      session.accessToken,
      `conversions?${restliQuery({ q: 'account', account: encodedUrn(accountUrn(account.id)) })}`,
    );
    const rules =
      (body.elements as Array<{ id?: number | string; name?: string; conversionMethod?: string; enabled?: boolean }> | undefined) ?? [];
    // Only rules that take Conversions API events can receive ours.
    return rules
      .filter((rule) => rule.id !== undefined && rule.conversionMethod === 'CONVERSIONS_API' && rule.enabled !== false)
      .map((rule) => ({ id: idOf(String(rule.id)), name: rule.name ?? String(rule.id) }));
  },
  report: linkedinReport,
  counted: linkedinCounted,
  deliver: linkedinDelivery,
};
