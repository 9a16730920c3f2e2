import type { AdLevel } from '@/lib/shared/connections/rows';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';
import { connectWithKey } from '@/lib/server/credentials';
import { createConnection } from '@/lib/server/services/connections';
import { createIntegration, updateIntegration } from '@/lib/server/services/integrations';
import { consentTo, SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { getRun } from '@/lib/server/repos/ledger';
import { untilValue } from '@/tests/api/helpers/until';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';

/**
 * An organization with an ad-platform source, a BigQuery or Mixpanel destination and a connection
 * between them, made through the services the API uses (sandbox consent and key checks included).
 * Needs platformsEnv(...) in process.env.
 */

/** Accounts of the sandbox each platform's source picks (a Google client goes through its manager). */
export const SANDBOX_AD_ACCOUNTS: Record<AdPlatform, string[]> = {
  google_ads: ['1234567890', '5556667778'],
  meta_ads: ['101', '102'],
  microsoft_ads: ['301'],
  linkedin_ads: ['510001'],
  tiktok_ads: ['7100000000000000001', '7100000000000000002'],
};

const REDIRECT_URI = 'http://localhost:3999/addSource';

export async function connectSource(
  orgId: string,
  uid: string,
  platform: AdPlatform,
  accountIds = SANDBOX_AD_ACCOUNTS[platform],
): Promise<string> {
  const oauth = connectorFor(platform).auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('test-state', REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  const source = await createIntegration(orgId, { kind: 'source', platform, connection, uid });
  await updateIntegration(orgId, 'source', source.id, { accountIds });
  return source.id;
}

export async function connectWarehouse(
  orgId: string,
  uid: string,
  kind: 'bigquery' | 'mixpanel',
  serviceAccountKey: string,
): Promise<string> {
  const connection =
    kind === 'bigquery'
      ? await connectWithKey('bigquery', { serviceAccountKey })
      : await connectWithKey('mixpanel', {
          username: SANDBOX_MIXPANEL.username,
          secret: SANDBOX_MIXPANEL.secret,
          projectId: SANDBOX_MIXPANEL.projects.US.id,
          residency: 'US',
        });
  const destination = await createIntegration(orgId, { kind: 'destination', platform: kind, connection, uid });
  return destination.id;
}

export interface ConnectionSetup {
  owner: TestUser;
  orgId: string;
  sourceId: string;
  destinationId: string;
  connectionId: string;
  /** BigQuery: where the rows are. */
  dataset: string;
  table: string;
}

export async function setUpConnection(options: {
  platform?: AdPlatform;
  destination?: 'bigquery' | 'mixpanel';
  level?: AdLevel;
  lookbackDays?: number;
  plan?: 'starter' | 'growth' | 'scale';
  accountIds?: string[];
  serviceAccountKey: string;
}): Promise<ConnectionSetup> {
  const platform = options.platform ?? 'google_ads';
  const plan = options.plan ?? 'scale';
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']], {
    subscription: { status: 'active', plan, current_period_end: '2099-01-01T00:00:00.000Z', past_due_since: null },
  });
  const sourceId = await connectSource(orgId, owner.uid, platform, options.accountIds);
  const destinationId = await connectWarehouse(orgId, owner.uid, options.destination ?? 'bigquery', options.serviceAccountKey);
  // A table per test organization: tests share the sandbox's BigQuery.
  const dataset = 'signalbridge';
  const table = `ads_${orgId.slice(4, 12)}`;
  const connection = await createConnection(orgId, plan, owner.uid, {
    name: 'Ads to warehouse',
    sourceId,
    accountIds: options.accountIds ?? SANDBOX_AD_ACCOUNTS[platform],
    destinationId,
    dataset: options.destination === 'mixpanel' ? undefined : dataset,
    table: options.destination === 'mixpanel' ? undefined : table,
    level: options.level ?? 'campaign',
    schedule: { every: 'daily', at: '06:00', timeZone: 'UTC' },
    lookbackDays: options.lookbackDays ?? 3,
  });
  return { owner, orgId, sourceId, destinationId, connectionId: connection.id, dataset, table };
}

/** A run of a connection once it is no longer running (its outcome written), or a timeout naming it. */
export const runFinished = (setup: Pick<ConnectionSetup, 'orgId' | 'connectionId'>, runId: string, timeoutMs: number) =>
  untilValue(
    () => getRun(setup.orgId, setup.connectionId, runId),
    (run) => run.outcome !== 'running',
    timeoutMs,
    `run ${runId}`,
  );
