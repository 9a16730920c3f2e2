import { createSign } from 'node:crypto';
import type { AdAccount, ConversionTarget } from '@/lib/integrations/platforms';
import { GOOGLE_SCOPES, googleConfig } from '@/lib/server/platforms/config';
import { bearer, form, PlatformError, requestJson } from '@/lib/server/platforms/http';

/**
 * Google OAuth 2.0 (authorization code, offline, consent), the Google Ads API (v26) account and
 * conversion-action calls, and BigQuery's project list — over plain HTTPS.
 */
const ADS_VERSION = 'v26';

export function googleAuthorizeUrl(product: 'google_ads' | 'bigquery', state: string, redirectUri: string): string {
  const config = googleConfig();
  const url = new URL(config.authorizeUrl);
  url.search = new URLSearchParams({
    client_id: config.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: ['openid', 'email', 'profile', ...GOOGLE_SCOPES[product]].join(' '),
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: 'true',
    state,
  }).toString();
  return url.toString();
}

function tokenError(status: number, body: Record<string, unknown>): PlatformError {
  // invalid_grant: the refresh token was revoked, expired, unused for 6 months or past the limit.
  if (body.error === 'invalid_grant') {
    return new PlatformError('google_ads', status, 'Google no longer accepts this login: it was revoked or expired.', true);
  }
  console.error('[platforms] google token error', { status, error: body.error });
  return new PlatformError('google_ads', status >= 500 ? 502 : 400, 'Google refused the request. Try connecting again.');
}

export interface GoogleTokens {
  accessToken: string;
  refreshToken: string | null;
}

export async function googleExchangeCode(code: string, redirectUri: string): Promise<GoogleTokens> {
  const config = googleConfig();
  const { status, body } = await requestJson(
    'google_ads',
    config.tokenUrl,
    form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: config.clientId, client_secret: config.clientSecret }),
  );
  if (status !== 200) throw tokenError(status, body);
  return { accessToken: String(body.access_token), refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null };
}

export async function googleRefresh(refreshToken: string): Promise<string> {
  const config = googleConfig();
  const { status, body } = await requestJson(
    'google_ads',
    config.tokenUrl,
    form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: config.clientId, client_secret: config.clientSecret }),
  );
  if (status !== 200) throw tokenError(status, body);
  return String(body.access_token);
}

export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri: string;
}

/** A service account signs a JWT with its key and trades it for an access token (RFC 7523). */
export async function googleServiceAccountToken(key: ServiceAccountKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({
    iss: key.client_email,
    scope: GOOGLE_SCOPES.bigquery.join(' '),
    aud: key.token_uri,
    iat: now,
    exp: now + 3600,
  })}`;
  let signature: string;
  try {
    signature = createSign('RSA-SHA256').update(unsigned).sign(key.private_key, 'base64url');
  } catch {
    throw new PlatformError('bigquery', 400, 'The key file’s private key could not be read. Download a new JSON key.');
  }
  // Only Google's token endpoint (or the configured one) ever receives the assertion.
  const { status, body } = await requestJson(
    'bigquery',
    googleConfig().tokenUrl,
    form({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${unsigned}.${signature}` }),
  );
  if (status !== 200) {
    throw new PlatformError('bigquery', 400, 'Google did not accept this service account key. It may have been deleted or disabled.', body.error === 'invalid_grant');
  }
  return String(body.access_token);
}

export async function googleUserEmail(accessToken: string): Promise<string> {
  const { status, body } = await requestJson('google_ads', googleConfig().userInfoUrl, { headers: bearer(accessToken) });
  if (status !== 200) return 'Google account';
  return String(body.email ?? body.name ?? 'Google account');
}

function adsError(status: number, body: Record<string, unknown>): PlatformError {
  const error = body.error as { status?: string; message?: string } | undefined;
  if (status === 401) return new PlatformError('google_ads', 401, 'Google Ads no longer accepts this login.', true);
  if (status === 403) return new PlatformError('google_ads', 403, 'This Google login has no access to that Google Ads account.');
  console.error('[platforms] google ads error', { status, error: error?.status, message: error?.message });
  return new PlatformError('google_ads', 502, 'Google Ads could not answer. Try again in a minute.');
}

async function adsSearch(accessToken: string, customerId: string, query: string, loginCustomerId?: string | null) {
  const { status, body } = await requestJson('google_ads', `${googleConfig().adsApiUrl}/${ADS_VERSION}/customers/${customerId}/googleAds:search`, {
    method: 'POST',
    headers: {
      ...bearer(accessToken),
      'Content-Type': 'application/json',
      ...(loginCustomerId ? { 'login-customer-id': loginCustomerId } : {}),
    },
    body: JSON.stringify({ query }),
  });
  if (status !== 200) throw adsError(status, body);
  return (body.results as Array<Record<string, Record<string, unknown>>> | undefined) ?? [];
}

/**
 * Every Google Ads customer the login can use: the directly accessible ones, and the clients of
 * any manager among them (listAccessibleCustomers lists only the former).
 */
export async function googleAdsAccounts(accessToken: string): Promise<AdAccount[]> {
  const { status, body } = await requestJson('google_ads', `${googleConfig().adsApiUrl}/${ADS_VERSION}/customers:listAccessibleCustomers`, {
    headers: bearer(accessToken),
  });
  if (status !== 200) throw adsError(status, body);
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

export async function googleConversionActions(accessToken: string, account: AdAccount): Promise<ConversionTarget[]> {
  const rows = await adsSearch(
    accessToken,
    account.id,
    "SELECT conversion_action.id, conversion_action.name, conversion_action.status FROM conversion_action WHERE conversion_action.status = 'ENABLED'",
    account.managerId ?? account.id,
  );
  return rows.map((row) => ({ id: String(row.conversionAction?.id), name: String(row.conversionAction?.name ?? '') }));
}

export async function bigQueryProjects(accessToken: string): Promise<AdAccount[]> {
  const { status, body } = await requestJson('bigquery', `${googleConfig().bigQueryApiUrl}/bigquery/v2/projects?maxResults=1000`, {
    headers: bearer(accessToken),
  });
  if (status === 401) throw new PlatformError('bigquery', 401, 'BigQuery no longer accepts this login.', true);
  if (status !== 200) throw new PlatformError('bigquery', 502, 'BigQuery could not list your projects. Try again in a minute.');
  const projects = (body.projects as Array<{ id: string; friendlyName?: string; projectReference?: { projectId: string } }> | undefined) ?? [];
  return projects.map((project) => ({ id: project.projectReference?.projectId ?? project.id, name: project.friendlyName ?? project.id }));
}
