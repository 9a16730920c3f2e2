import { createSign } from 'node:crypto';
import { invalidFields } from '@/lib/server/errors';
import { bigQueryRowSource } from '@/lib/server/connectors/bigquery/conversionSource';
import { bigQueryConfig } from '@/lib/server/connectors/bigquery/config';
import { googleConfig } from '@/lib/server/connectors/google/config';
import { googleOAuth, googleRefresh, type GoogleOAuthCredential } from '@/lib/server/connectors/google/oauth';
import { bigQueryWriter } from '@/lib/server/connectors/bigquery/writer';
import { bigQueryDelivery } from '@/lib/server/connectors/bigquery/delivery';
import { bearer, form, requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Connector, Session } from '@/lib/server/connectors/types';

/** BigQuery as a destination: a Google login or a service account's JSON key, and its projects. */

export interface ServiceAccountKey {
  type: 'service_account';
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri: string;
}

export type BigQueryCredential = GoogleOAuthCredential | { type: 'google_service_account'; key: ServiceAccountKey };

function parseServiceAccountKey(text: string): ServiceAccountKey {
  const invalid = () => invalidFields({ serviceAccountKey: ['Paste the whole JSON key file of a service account'] });
  let key: Partial<ServiceAccountKey>;
  try {
    key = JSON.parse(text) as Partial<ServiceAccountKey>;
  } catch {
    throw invalid();
  }
  if (key.type !== 'service_account' || !key.client_email || !key.private_key || !key.project_id) throw invalid();
  return {
    type: 'service_account',
    project_id: key.project_id,
    client_email: key.client_email,
    private_key: key.private_key,
    token_uri: key.token_uri ?? '',
  };
}

/** A service account signs a JWT with its key and trades it for an access token (RFC 7523). */
async function serviceAccountToken(key: ServiceAccountKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({
    iss: key.client_email,
    scope: bigQueryConfig().scopes.join(' '),
    aud: key.token_uri,
    iat: now,
    exp: now + 3600,
  })}`;
  let signature: string;
  try {
    signature = createSign('RSA-SHA256').update(unsigned).sign(key.private_key, 'base64url');
  } catch {
    throw new PlatformError('bigquery', 'invalid', 'The key file’s private key could not be read. Download a new JSON key.');
  }
  // Only Google's token endpoint (or the configured one) ever receives the assertion.
  const { status, body } = await requestJson(
    'bigquery',
    googleConfig().tokenUrl,
    form({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${unsigned}.${signature}` }),
  );
  if (status !== 200) {
    throw new PlatformError(
      'bigquery',
      body.error === 'invalid_grant' ? 'needs_reauth' : 'invalid',
      'Google did not accept this service account key. It may have been deleted or disabled.',
    );
  }
  return String(body.access_token);
}

export const bigQuery: Connector<BigQueryCredential> = {
  id: 'bigquery',
  auth: {
    oauth: googleOAuth('bigquery', bigQueryConfig().scopes),
    key: {
      field: 'serviceAccountKey',
      async connect(input) {
        const key = parseServiceAccountKey(input.serviceAccountKey ?? '');
        await serviceAccountToken(key);
        return {
          credential: { type: 'google_service_account', key },
          accountName: key.client_email,
          accounts: [{ id: key.project_id, name: key.project_id }],
          settings: { projectId: key.project_id },
        };
      },
    },
  },
  async openSession(credential): Promise<Session<BigQueryCredential>> {
    if (credential.type === 'google_oauth') return googleRefresh('bigquery', credential);
    return { accessToken: await serviceAccountToken(credential.key), rotated: null };
  },
  async listAccounts(session) {
    const { status, body } = await requestJson('bigquery', `${bigQueryConfig().apiUrl}/bigquery/v2/projects?maxResults=1000`, {
      headers: bearer(session.accessToken),
    });
    if (status === 401) throw new PlatformError('bigquery', 'needs_reauth', 'BigQuery no longer accepts this login.');
    if (status !== 200) throw new PlatformError('bigquery', 'retryable', 'BigQuery could not list your projects. Try again in a minute.');
    const projects =
      (body.projects as Array<{ id: string; friendlyName?: string; projectReference?: { projectId: string } }> | undefined) ?? [];
    return projects.map((project) => ({ id: project.projectReference?.projectId ?? project.id, name: project.friendlyName ?? project.id }));
  },
  listTargets: async () => [],
  deliver: bigQueryDelivery,
  writer: bigQueryWriter,
  source: bigQueryRowSource,
};
