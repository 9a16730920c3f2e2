import { googleAdsCounted } from '@/lib/server/connectors/google_ads/counted';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { googleAdsConfig } from '@/lib/server/connectors/google_ads/config';
import { googleAdsDelivery } from '@/lib/server/connectors/google_ads/delivery';
import { readRequestStatus } from '@/lib/server/connectors/google_ads/diagnostics';
import { googleAdsReport } from '@/lib/server/connectors/google_ads/report';
import { googleOAuth, googleRefresh, type GoogleOAuthCredential } from '@/lib/server/connectors/google/oauth';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import { googleAdsError } from '@/lib/server/connectors/google_ads/errors';
import type { Connector } from '@/lib/server/connectors/types';

/** Google Ads: a Google login, its customers (through managers too), their conversion actions, their ad performance (searchStream), and conversions to them (Data Manager). */

const apiBase = () => `${googleAdsConfig().apiUrl}/${googleAdsConfig().version}`;

async function adsSearch(accessToken: string, customerId: string, query: string, loginCustomerId?: string | null) {
  const { status, body } = await requestJson('google_ads', `${apiBase()}/customers/${customerId}/googleAds:search`, {
    method: 'POST',
    headers: {
      ...bearer(accessToken),
      'Content-Type': 'application/json',
      ...(loginCustomerId ? { 'login-customer-id': loginCustomerId } : {}),
    },
    body: JSON.stringify({ query }),
  });
  if (status !== 200) throw googleAdsError(status, body);
  return (body.results as Array<Record<string, Record<string, unknown>>> | undefined) ?? [];
}

/**
 * Every Google Ads customer the login can use: the directly accessible ones, and the clients of
 * any manager among them (listAccessibleCustomers lists only the former).
 */
async function googleAdsAccounts(accessToken: string): Promise<AdAccount[]> {
  const { status, body } = await requestJson('google_ads', `${apiBase()}/customers:listAccessibleCustomers`, {
    headers: bearer(accessToken),
  });
  if (status !== 200) throw googleAdsError(status, body);
  const direct = ((body.resourceNames as string[] | undefined) ?? []).map((name) => name.replace('customers/', ''));
  const accounts = new Map<string, AdAccount>();
  const hierarchies = await Promise.all(
    direct.map((id) =>
      adsSearch(
        accessToken,
        id,
        'SELECT customer_client.id, customer_client.descriptive_name, customer_client.currency_code, customer_client.manager, customer_client.level FROM customer_client WHERE customer_client.level <= 1',
        id,
      ).then((rows) => ({ id, rows })),
    ),
  );
  for (const { id, rows } of hierarchies) {
    for (const row of rows) {
      const client = row.customerClient ?? {};
      const clientId = String(client.id);
      const isSelf = clientId === id;
      if (!isSelf && accounts.has(clientId)) continue;
      accounts.set(clientId, {
        id: clientId,
        name: String(client.descriptiveName ?? ''),
        currency: (client.currencyCode as string | undefined) ?? null,
        managerId: isSelf ? null : id,
        isManager: Boolean(client.manager),
      });
    }
  }
  return [...accounts.values()];
}

export const googleAds: Connector<GoogleOAuthCredential> = {
  id: 'google_ads',
  auth: { oauth: googleOAuth('google_ads', googleAdsConfig().scopes) },
  openSession: (credential) => googleRefresh('google_ads', credential),
  listAccounts: (session) => googleAdsAccounts(session.accessToken),
  async listTargets(session, account) {
    const rows = await adsSearch(
      session.accessToken,
      account.id,
      "SELECT conversion_action.id, conversion_action.name, conversion_action.status FROM conversion_action WHERE conversion_action.status = 'ENABLED'",
      account.managerId ?? account.id,
    );
    return rows.map((row) => ({ id: String(row.conversionAction?.id), name: String(row.conversionAction?.name ?? '') }));
  },
  report: googleAdsReport,
  counted: googleAdsCounted,
  quality: {
    needsLastRequest: true,
    read: (session, _actionId, lastRequest) => readRequestStatus(session.accessToken, { id: lastRequest!.id, at: lastRequest!.at || null }),
  },
  deliver: googleAdsDelivery,
};
