import { createConversion } from '@/lib/server/services/conversions';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { connectDestination, leadEvents, publishFromApp, SANDBOX_TARGETS, setUpConversion } from '@/tests/api/helpers/conversions';
import { until } from '@/tests/api/helpers/until';
import { deliveryHours } from '@/lib/server/repos/hourTallies';

// Issue 24: delivery lanes, the shared Data Manager quota and two workers, with worker processes against the
// Pub/Sub emulator, Firestore and the sandbox's platforms (arrivals counted there by each platform's dedup key).
jest.setTimeout(240_000);

let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
afterEach(() => platforms.conversions.reset());
afterAll(() => platforms.close());

const worker = workerProcesses({ DELIVERY_LINGER_MS: '200', DELIVERY_RETRY_BASE_MS: '100', DELIVERY_RETRY_ATTEMPTS: '6' });

const events = (count: number, prefix: string) =>
  leadEvents(count, prefix, (index) => ({ clickIds: { fbp: `fb.1.1700000000000.${index}`, gclid: `Cj0KCQ-${prefix}-${index}` } }));
const publish = publishFromApp;

/** The sandbox's entries of these events at one platform: one per dedup key, however often each arrived. */
const arrived = (platform: 'meta' | 'google', prefix: string) =>
  platforms.conversions
    .list(platform)
    .filter((entry) => (platform === 'meta' ? entry.key.includes(`|Lead|${prefix}-`) : entry.key.includes(`|${prefix}-`)));

test('Meta hangs: Google events are still delivered within seconds; once Meta answers, every Meta event arrives once', async () => {
  const meta = await setUpConversion('meta_ads');
  const google = await setUpConversion('google_ads');
  const prefix = `hang${Date.now()}`;
  platforms.conversions.fail('meta', { status: 'hang', seconds: 600 });
  // Ten Meta batches of 1,000: more than the eight slots every destination used to share.
  await publish(meta, events(10_000, `${prefix}m`));
  worker();
  await until(() => platforms.conversions.hanging() > 0, 60_000, 'Meta to hold requests unanswered');
  await publish(google, events(50, `${prefix}g`));
  // Meta's requests time out after 15 s: Google's arrive while the first ones are still hanging.
  await until(() => arrived('google', `${prefix}g`).length === 50, 12_000, 'the Google events while Meta hangs');
  expect(arrived('meta', `${prefix}m`)).toHaveLength(0);

  platforms.conversions.recover('meta');
  await until(() => arrived('meta', `${prefix}m`).length === 10_000, 180_000, 'every Meta event once Meta answers');
  expect(arrived('meta', `${prefix}m`).every((entry) => entry.receipts === 1)).toBe(true);
});

test("Data Manager's shared quota: organization A's 20,000-event flood does not hold organization B's events behind it", async () => {
  const a = await setUpConversion('google_ads');
  const b = await setUpConversion('google_ads');
  const prefix = `fair${Date.now()}`;
  // One request every two seconds for all tenants: A's flood is ten requests (20 s); lanes wide enough that every
  // one of A's batches waits for the quota at once (a first-come line would serve B after all of them).
  worker({ DATAMANAGER_REQUESTS_PER_MINUTE: '30', DELIVERY_LANE_CONCURRENCY: '20', WORKER_MAX_EVENTS: '30000' });
  await publish(a, events(20_000, `${prefix}a`));
  await until(() => arrived('google', `${prefix}a`).length > 0, 60_000, "A's first request");
  await publish(b, events(20, `${prefix}b`));
  await until(() => arrived('google', `${prefix}b`).length === 20, 60_000, "B's events");
  // B's one request went within a turn or two of A's: A had at most half its flood delivered by then.
  expect(arrived('google', `${prefix}a`).length).toBeLessThanOrEqual(10_000);
  await until(() => arrived('google', `${prefix}a`).length === 20_000, 120_000, "the rest of A's flood");
});

test('two workers on one subscription: each event delivered once to each platform, and counted once', async () => {
  const setup = await setUpConversion('meta_ads');
  const googleDestination = await connectDestination(setup.orgId, setup.owner.uid, 'google_ads');
  const google = await createConversion(setup.orgId, 'growth', setup.owner.uid, {
    name: 'Leads to Google',
    source: { type: 'app', appId: setup.appId },
    destination: { destinationId: googleDestination, ...SANDBOX_TARGETS.google_ads },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'clickIds', 'context'] },
  });
  const prefix = `pair${Date.now()}`;
  await publish(setup, events(6_000, prefix));
  worker();
  worker();
  await until(() => arrived('meta', prefix).length === 6_000, 180_000, 'every event at Meta');
  await until(() => arrived('google', prefix).length === 6_000, 180_000, 'every event at Google');
  expect(arrived('meta', prefix).every((entry) => entry.receipts === 1)).toBe(true);
  expect(arrived('google', prefix).every((entry) => entry.receipts === 1)).toBe(true);
  // Each worker writes its own shard of the hour; read together they count each event once.
  const delivered = async (conversionId: string) =>
    (await deliveryHours(setup.orgId, conversionId, new Date(Date.now() - 3600_000))).reduce((total, hour) => total + hour.delivered, 0);
  await until(
    async () => (await delivered(setup.conversionId)) === 6_000 && (await delivered(google.id)) === 6_000,
    30_000,
    'the counters',
  );
});
