import type { AdRow } from '@/lib/shared/connections/rows';
import { adRowKey } from '@/lib/shared/connections/rows';
import { addDays, daysInclusive, toDay } from '@/lib/shared/connections/windows';
import { startBackfill } from '@/lib/server/services/connections';
import { startRun } from '@/lib/server/sync/scheduler';
import type { SandboxAdAccount } from '@/sandbox/adData';
import { platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { tiktokSandboxAccount } from '@/sandbox/tiktok_ads/accounts';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { runFinished, setUpConnection, type ConnectionSetup } from '@/tests/api/helpers/connections';

// TikTok as a source, end to end: a login made through the sandbox's consent, a connection to both of its
// advertisers (one on Los Angeles time in USD, one on Berlin time in EUR), the sync worker as a process; what it
// wrote to BigQuery and Mixpanel is compared with the figures the sandbox generated. TikTok refuses a daily range
// over 30 days, so two years are read in windows.
jest.setTimeout(300_000);

const ADVERTISERS = ['7100000000000000001', '7100000000000000002'].map((id) => tiktokSandboxAccount(id)!);
let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
const worker = workerProcesses({ SYNC_JOB_ATTEMPTS: '1' });
afterEach(() => platforms.adData.reset());
afterAll(() => platforms.close());

const finished = (setup: ConnectionSetup, runId: string, timeoutMs = 120_000) => runFinished(setup, runId, timeoutMs);

/** Money as whole cents: TikTok answers amounts as decimal text with two places. */
const cents = (value: number) => Math.round(value * 100);

/** The sandbox's own figures for an advertiser (its days, up to its today), by row key, as a campaign-level connection's rows. */
function generated(advertiser: SandboxAdAccount, from: string, to: string) {
  return new Map(
    [...platforms.adData.rowsOf('tiktok', advertiser, 'campaign', from, to)].map((facts) => [
      adRowKey({
        platform: 'tiktok_ads',
        account_id: advertiser.id,
        campaign_id: facts.campaignId,
        ad_group_id: null,
        ad_id: null,
        date: facts.date,
      } as AdRow),
      {
        impressions: facts.impressions,
        clicks: facts.clicks,
        spend: cents(facts.spendMicros / 1e6),
        conversions: facts.conversions,
        conversion_value: cents(facts.valueMicros / 1e6),
      },
    ]),
  );
}
const figures = (rows: Array<Record<string, unknown>>) =>
  new Map(
    rows.map((row) => [
      adRowKey(row as unknown as AdRow),
      {
        impressions: Number(row.impressions),
        clicks: Number(row.clicks),
        spend: cents(Number(row.spend)),
        conversions: Number(row.conversions),
        conversion_value: cents(Number(row.conversion_value)),
      },
    ]),
  );

test('a two-year backfill of two advertisers into BigQuery writes every day of every campaign once, in each advertiser’s days, equal to the sandbox’s figures', async () => {
  const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey, platform: 'tiktok_ads' });
  const from = addDays(toDay(Date.now()), -729);
  const { runId, chunks } = await startBackfill(setup.orgId, 'scale', setup.owner.uid, setup.connectionId, from);
  expect(chunks).toBeGreaterThanOrEqual(24);
  worker();
  const run = await finished(setup, runId, 240_000);
  expect(run).toMatchObject({ outcome: 'succeeded', jobsDone: run.jobsTotal });
  const rows = platforms.bigquery.rows('acme-warehouse', setup.dataset, setup.table);
  // Each advertiser's rows carry its own currency and time zone.
  expect(new Set(rows.map((row) => `${row.account_id} ${row.currency} ${row.time_zone}`))).toEqual(
    new Set(['7100000000000000001 USD America/Los_Angeles', '7100000000000000002 EUR Europe/Berlin']),
  );
  // Two years, less what the backfill leaves to the schedule.
  expect(daysInclusive(run.from, run.to)).toBeGreaterThanOrEqual(700);
  for (const advertiser of ADVERTISERS) {
    const own = rows.filter((row) => row.account_id === advertiser.id);
    const expected = generated(advertiser, run.from, run.to);
    // Three campaigns, every day of the run each advertiser has reached: no day written twice, none missing.
    expect(expected.size).toBeGreaterThanOrEqual(3 * 700);
    expect(own).toHaveLength(expected.size);
    expect(figures(own)).toEqual(expected);
  }
  expect(rows).toHaveLength(ADVERTISERS.reduce((sum, advertiser) => sum + generated(advertiser, run.from, run.to).size, 0));
});

test('TikTok → Mixpanel: each day of each campaign once as an Ad Data event, with utm_source tiktok', async () => {
  const setup = await setUpConnection({
    serviceAccountKey: platforms.serviceAccountKey,
    platform: 'tiktok_ads',
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
      .filter((event) => (event.properties as Record<string, unknown>).utm_source === 'tiktok');
  // Two advertisers × three campaigns × the lookback's days (each advertiser's days up to its today).
  const expected = ADVERTISERS.reduce((sum, advertiser) => sum + generated(advertiser, first.from, first.to).size, 0);
  expect(expected).toBeGreaterThanOrEqual(2 * 3 * 4);
  expect(first.rowsWritten).toBe(expected);
  expect(events()).toHaveLength(first.rowsWritten);
  expect(platforms.mixpanel.events(SANDBOX_MIXPANEL.projects.US.id, 'Ad Data').length - before).toBe(first.rowsWritten);
  // A second run of the same days replaces them: still one event per campaign and day.
  await finished(setup, (await startRun(setup.orgId, setup.connectionId, 'manual'))!);
  expect(events()).toHaveLength(first.rowsWritten);
  const keys = events().map((event) => {
    const properties = event.properties as Record<string, unknown>;
    return `${String(properties.account_id)}/${String(properties.campaign_id)}/${String(properties.date)}`;
  });
  expect(new Set(keys).size).toBe(keys.length);
});
