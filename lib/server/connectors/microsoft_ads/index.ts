import { microsoftCounted } from '@/lib/server/connectors/microsoft_ads/counted';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { accountHeaders, msads } from '@/lib/server/connectors/microsoft_ads/api';
import { microsoftConfig } from '@/lib/server/connectors/microsoft_ads/config';
import { microsoftDelivery } from '@/lib/server/connectors/microsoft_ads/delivery';
import { microsoftReport } from '@/lib/server/connectors/microsoft_ads/report';
import { expiresAtOf, form, requestJson } from '@/lib/server/connectors/http';
import { microsoftAdsError } from '@/lib/server/connectors/microsoft_ads/errors';
import type { Connector } from '@/lib/server/connectors/types';

/** Microsoft identity platform (v2.0) and the Microsoft Advertising REST API (v13). */

/** A Microsoft login: its refresh token, which Microsoft rotates. */
export interface MicrosoftCredential {
  type: 'microsoft';
  refreshToken: string;
}

interface MicrosoftTokens {
  accessToken: string;
  /** Microsoft rotates refresh tokens: each refresh may hand out a new one to keep. */
  refreshToken: string;
  expiresAt: number | undefined;
}

async function token(values: Record<string, string>): Promise<MicrosoftTokens> {
  const config = microsoftConfig();
  const { status, body } = await requestJson(
    'microsoft_ads',
    `${config.loginUrl}/token`,
    form({ client_id: config.clientId, client_secret: config.clientSecret, scope: config.scope, ...values }),
  );
  if (status !== 200) throw microsoftAdsError(status, body);
  return {
    accessToken: String(body.access_token),
    refreshToken: String(body.refresh_token ?? values.refresh_token ?? ''),
    expiresAt: expiresAtOf(body.expires_in),
  };
}

async function userOf(accessToken: string): Promise<{ id: string; name: string }> {
  const body = await msads(`${microsoftConfig().customerManagementUrl}/User/Query`, accessToken, { UserId: null });
  const user = (body.User ?? {}) as { Id?: number; UserName?: string; ContactInfo?: { Email?: string } };
  return { id: String(user.Id ?? ''), name: user.ContactInfo?.Email ?? user.UserName ?? 'Microsoft account' };
}

async function accountsOf(accessToken: string): Promise<AdAccount[]> {
  const user = await userOf(accessToken);
  const body = await msads(`${microsoftConfig().customerManagementUrl}/Accounts/Search`, accessToken, {
    Predicates: [{ Field: 'UserId', Operator: 'Equals', Value: user.id }],
    PageInfo: { Index: 0, Size: 1000 },
  });
  const accounts =
    (body.Accounts as Array<{ Id: number; Name?: string; ParentCustomerId?: number; CurrencyCode?: string }> | undefined) ?? [];
  // managerId holds the parent customer id, sent as CustomerId with the account's calls.
  return accounts.map((account) => ({
    id: String(account.Id),
    name: account.Name ?? String(account.Id),
    currency: account.CurrencyCode ?? null,
    managerId: account.ParentCustomerId ? String(account.ParentCustomerId) : null,
  }));
}

export const microsoftAds: Connector<MicrosoftCredential> = {
  id: 'microsoft_ads',
  auth: {
    oauth: {
      scopes: () => microsoftConfig().scope.split(' '),
      authorizeUrl(state, redirectUri) {
        const config = microsoftConfig();
        const url = new URL(`${config.loginUrl}/authorize`);
        url.search = new URLSearchParams({
          client_id: config.clientId,
          response_type: 'code',
          redirect_uri: redirectUri,
          response_mode: 'query',
          scope: config.scope,
          prompt: 'select_account',
          state,
        }).toString();
        return url.toString();
      },
      async exchangeCode(code, redirectUri) {
        const tokens = await token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
        return {
          credential: { type: 'microsoft', refreshToken: tokens.refreshToken },
          accountName: (await userOf(tokens.accessToken)).name,
        };
      },
    },
  },
  async openSession(credential) {
    const tokens = await token({ grant_type: 'refresh_token', refresh_token: credential.refreshToken });
    const rotated =
      tokens.refreshToken && tokens.refreshToken !== credential.refreshToken
        ? { type: 'microsoft' as const, refreshToken: tokens.refreshToken }
        : null;
    return { accessToken: tokens.accessToken, rotated, expiresAt: tokens.expiresAt };
  },
  listAccounts: (session) => accountsOf(session.accessToken),
  async listTargets(session, account) {
    const body = await msads(
      `${microsoftConfig().campaignManagementUrl}/ConversionGoals/QueryByIds`,
      session.accessToken,
      { ConversionGoalIds: null, ConversionGoalTypes: 'OfflineConversion', ReturnAdditionalFields: null },
      accountHeaders(account),
    );
    const goals = (body.ConversionGoals as Array<{ Id: number; Name?: string }> | undefined) ?? [];
    return goals.map((goal) => ({ id: String(goal.Id), name: goal.Name ?? String(goal.Id) }));
  },
  report: microsoftReport,
  counted: microsoftCounted,
  deliver: microsoftDelivery,
};
