import { publishConversions } from '@/lib/server/queue/pubsub';

import { releaseHeld } from '@/lib/server/services/conversions';
import { connectorFor } from '@/lib/server/connectors/registry';
import { replaceCredential, loadIntegration } from '@/lib/server/repos/integrations';
import { sealCredential } from '@/lib/server/credentials';
import { setAppWarehouse } from '@/lib/server/services/apps';
import { createDestinationFromKey } from '@/lib/server/services/integrations';
import { consentTo, platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { leadEvents, ownerWithShopApp, publishFromApp, setUpConversion, type ConversionSetup } from '@/tests/api/helpers/conversions';
import { until as untilHolds } from '@/tests/api/helpers/until';
import { deliveryHours } from '@/lib/server/repos/hourTallies';
import { parkedCounts } from '@/lib/server/repos/parkedEvents';

// The delivery worker as a process, against the Pub/Sub emulator, Firestore and the sandbox's
// Meta: what arrives is counted at the sandbox by Meta's dedup key (pixel, event name, event id).
jest.setTimeout(240_000);

let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
});
afterAll(() => platforms.close());

const worker = workerProcesses({ DELIVERY_LINGER_MS: '2000', DELIVERY_RETRY_BASE_MS: '100', DELIVERY_RETRY_ATTEMPTS: '6' });

const events = (count: number, prefix: string) => leadEvents(count, prefix, () => ({ maskedEmail: 'p***@example.com' }));
const publish = publishFromApp;

/** The sandbox's Meta entries of these events: one per dedup key, however often each arrived. */
const arrived = (prefix: string) => platforms.conversions.list('meta').filter((entry) => String(entry.key).includes(`|Lead|${prefix}-`));

/** Waits for `condition`; a timeout also says how many events Meta has. */
const until = (condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string) =>
  untilHolds(condition, timeoutMs, () => `${what} (${platforms.conversions.list('meta').length} at Meta)`);

const delivered = async (setup: ConversionSetup) =>
  (await deliveryHours(setup.orgId, setup.conversionId, new Date(Date.now() - 3600_000))).reduce(
    (total, hour) => total + hour.delivered,
    0,
  );

test('10,000 events → each delivered once, in ⌈10,000 / 1,000⌉ Conversions API calls, and logged', async () => {
  const setup = await setUpConversion('meta_ads');
  const prefix = `bulk${Date.now()}`;
  await publish(setup, events(10_000, prefix));
  const callsBefore = platforms.conversions.calls('meta');
  worker();
  await until(() => arrived(prefix).length === 10_000, 180_000, '10,000 events at Meta');
  expect(arrived(prefix).every((entry) => entry.receipts === 1)).toBe(true);
  expect(platforms.conversions.calls('meta') - callsBefore).toBe(10);
  await until(async () => (await delivered(setup)) === 10_000, 30_000, 'the delivery log to count 10,000');
});

test('kill -9 the worker mid-stream and start another → nothing lost, nothing counted twice by Meta', async () => {
  const setup = await setUpConversion('meta_ads');
  const prefix = `kill${Date.now()}`;
  await publish(setup, events(6_000, prefix));
  // One message of 500 in hand at a time, each batch sent after the 2 s linger: a worker slow enough to die mid-stream.
  const first = worker({ WORKER_MAX_EVENTS: '500' });
  await until(() => arrived(prefix).length >= 1_000, 120_000, 'the first deliveries');
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const midway = arrived(prefix).length;
  expect(midway).toBeLessThan(6_000);
  worker();
  await until(() => arrived(prefix).length === 6_000, 180_000, 'every event after the restart');
  // Meta holds each event once; some arrived twice (sent before the kill, acknowledged after).
  expect(new Set(arrived(prefix).map((entry) => entry.key)).size).toBe(6_000);
});

test('two workers on one subscription deliver each event once, with 20 % transient failures', async () => {
  const setup = await setUpConversion('meta_ads');
  const prefix = `flaky${Date.now()}`;
  platforms.conversions.fail('meta', { status: 500, seconds: 120, rate: 0.2 });
  await publish(setup, events(3_000, prefix));
  worker();
  worker();
  await until(() => arrived(prefix).length === 3_000, 180_000, 'every event despite failures');
  expect(arrived(prefix).every((entry) => entry.receipts === 1)).toBe(true);
  platforms.conversions.failures.delete('meta');
});

test('a login revoked mid-stream → events held, not dropped; after Reconnect they are delivered', async () => {
  const setup = await setUpConversion('meta_ads');
  const prefix = `revoked${Date.now()}`;
  platforms.revokeAll('meta');
  await publish(setup, events(1_500, prefix));
  worker();
  await until(async () => (await parkedCounts(setup.orgId, setup.conversionId)).held === 1_500, 120_000, 'the events to be held');
  expect(arrived(prefix)).toHaveLength(0);
  const { integration } = await loadIntegration(setup.orgId, 'destination', setup.destinationId);
  expect(integration.status).toBe('needs_reauth');

  // Reconnect: a new consent, as the Reconnect button does, then the held events go out again.
  const oauth = connectorFor('meta_ads').auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('s', 'http://localhost:3999/metaReauth'));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, 'http://localhost:3999/metaReauth');
  const { credentialId } = await loadIntegration(setup.orgId, 'destination', setup.destinationId);
  await replaceCredential(setup.orgId, 'destination', setup.destinationId, {
    credentialId,
    sealedCredential: sealCredential(setup.orgId, credentialId, connection.credential),
    accountName: connection.accountName,
    uid: setup.owner.uid,
  });
  await releaseHeld(setup.orgId, setup.destinationId);
  await until(() => arrived(prefix).length === 1_500, 120_000, 'the held events after Reconnect');
  expect((await parkedCounts(setup.orgId, setup.conversionId)).held).toBe(0);
});

test('an app routed to Mixpanel: its events are imported into the project, hashed identifiers only, each once', async () => {
  const { owner, orgId, app } = await ownerWithShopApp();
  const project = SANDBOX_MIXPANEL.projects.US;
  const destination = await createDestinationFromKey(orgId, owner.uid, {
    platform: 'mixpanel',
    name: 'Analytics',
    username: SANDBOX_MIXPANEL.username,
    secret: SANDBOX_MIXPANEL.secret,
    projectId: project.id,
    residency: 'US',
  });
  await setAppWarehouse(orgId, app.id, 'mixpanel', destination.id, { plan: 'growth', uid: owner.uid });
  const prefix = `mp${Date.now()}`;
  await publishConversions(events(2_500, prefix), { org: orgId, source: `app:${app.id}` });
  const callsBefore = platforms.conversions.calls('mixpanel');
  worker();
  const imported = () =>
    platforms.conversions
      .list('mixpanel')
      .filter((entry) =>
        String((entry.event as { properties?: { event_id?: string } }).properties?.event_id ?? '').startsWith(`${prefix}-`),
      );
  await until(() => imported().length === 2_500, 120_000, '2,500 events in Mixpanel');
  expect(imported().every((entry) => entry.receipts === 1 && entry.target === project.id)).toBe(true);
  expect(platforms.conversions.calls('mixpanel') - callsBefore).toBe(2);
  expect(JSON.stringify(imported()[0]!.event)).not.toMatch(/person\d+@example\.com/);
});
