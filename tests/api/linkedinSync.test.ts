import type { AdRow } from '@/lib/shared/connections/rows';
import { adRowKey } from '@/lib/shared/connections/rows';
import { addDays, daysInclusive, toDay } from '@/lib/shared/connections/windows';
import { startBackfill } from '@/lib/server/services/connections';
import { startRun } from '@/lib/server/sync/scheduler';
import { platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { runFinished, setUpConnection, type ConnectionSetup } from '@/tests/api/helpers/connections';

// LinkedIn as a source, end to end: a login made through the sandbox's consent, a connection, the sync worker
// as a process; what it wrote to BigQuery and Mixpanel is compared with the figures the sandbox generated.
jest.setTimeout(300_000);

const ACCOUNT = { id: '510001', name: 'Acme Shoes (LinkedIn)', currency: 'USD', timeZone: 'UTC' };
let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
const worker = workerProcesses({ SYNC_JOB_ATTEMPTS: '1' });
afterEach(() => platforms.adData.reset());
afterAll(() => platforms.close());

const finished = (setup: ConnectionSetup, runId: string, timeoutMs = 120_000) => runFinished(setup, runId, timeoutMs);

/** The sandbox's own figures for the account, by row key, as the rows of a campaign-level connection. */
function generated(from: string, to: string) {
  return new Map(
    [...platforms.adData.rowsOf('linkedin', ACCOUNT, 'campaign', from, to)].map((facts) => [
      adRowKey({
        platform: 'linkedin_ads',
        account_id: ACCOUNT.id,
        campaign_id: facts.campaignId,
        ad_group_id: null,
        ad_id: null,
        date: facts.date,
      } as AdRow),
      { impressions: facts.impressions, clicks: facts.clicks, spend: facts.spendMicros / 1e6, conversions: facts.conversions },
    ]),
  );
}
const figures = (rows: Array<Record<string, unknown>>) =>
  new Map(
    rows.map((row) => [
      adRowKey(row as unknown as AdRow),
      { impressions: Number(row.impressions), clicks: Number(row.clicks), spend: Number(row.spend), conversions: Number(row.conversions) },
    ]),
  );

test('a two-year backfill into BigQuery writes every day of every campaign group once, equal to the sandbox’s figures', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, platform: 'linkedin_ads' });
  const from = addDays(toDay(Date.now()), -729);
  const { runId, chunks } = await startBackfill(setup.orgId, 'scale', setup.owner.uid, setup.connectionId, from);
  expect(chunks).toBeGreaterThanOrEqual(24);
  worker();
  const run = await finished(setup, runId, 240_000);
  expect(run).toMatchObject({ outcome: 'succeeded', jobsDone: run.jobsTotal });
  const rows = platforms.bigquery.rows('acme-warehouse', setup.dataset, setup.table);
  expect(new Set(rows.map((row) => `${row.account_id} ${row.currency} ${row.time_zone}`))).toEqual(new Set(['510001 USD UTC']));
  const expected = generated(run.from, run.to);
  expect(rows).toHaveLength(expected.size);
  // Three campaign groups, every day of the run (two years, less what the backfill leaves to the schedule).
  expect(daysInclusive(run.from, run.to)).toBeGreaterThanOrEqual(700);
  expect(rows).toHaveLength(3 * daysInclusive(run.from, run.to));
  expect(figures(rows)).toEqual(expected);
});

test('LinkedIn → Mixpanel: each day of each campaign group once as an Ad Data event, with utm_source linkedin', async () => {
  const setup = await setUpConnection({
    serviceAccountKey: platforms.serviceAccountKey,
    platform: 'linkedin_ads',
    destination: 'mixpanel',
    lookbackDays: 4,
  });
  worker();
  const before = platforms.mixpanel.events(SANDBOX_MIXPANEL.projects.US.id, 'Ad Data').length;
  const first = await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(first.outcome).toBe('succeeded');
  const events = () =>
    platforms.mixpanel
      .events(SANDBOX_MIXPANEL.projects.US.id, 'Ad Data')
      .filter((event) => (event.properties as Record<string, unknown>).utm_source === 'linkedin');
  expect(events().length).toBeGreaterThan(0);
  expect(events()).toHaveLength(first.rowsWritten);
  expect(platforms.mixpanel.events(SANDBOX_MIXPANEL.projects.US.id, 'Ad Data').length - before).toBe(first.rowsWritten);
  await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(events()).toHaveLength(first.rowsWritten);
});
