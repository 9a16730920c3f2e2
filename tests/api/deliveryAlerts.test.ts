import notifications from '@/pages/api/orgs/[orgId]/notifications/index';
import type { AlertNotification } from '@/lib/shared/alerts';

import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { leadEvents, publishFromApp, setUpConversion, type ConversionSetup } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandler, type TestServer } from '@/tests/api/helpers/server';
import { until } from '@/tests/api/helpers/until';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { deliveryHours } from '@/lib/server/repos/hourTallies';

// Issue 35 §2: a conversion's refused share alerts from the worker's counters. One burst of refusals and
// nothing after it (a quiet conversion) must alert as well as a busy one: the worker evaluates a conversion
// once its counters are written, not before. ALERT_EVALUATE_MS (a minute in production) is short here.
jest.setTimeout(240_000);

let platforms: FakePlatforms;
let server: TestServer;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  server = await serveHandler(notifications, undefined, '/api/orgs/[orgId]/notifications');
});
afterAll(async () => {
  await closeAll({ server });
  await platforms.close();
});

const worker = workerProcesses({ DELIVERY_LINGER_MS: '300', ALERT_EVALUATE_MS: '2000' });

/** Leads 30 days old: Meta takes events of the last 7 days only, so each is logged *not sent*. */
const stale = (count: number, prefix: string) =>
  leadEvents(count, prefix, () => ({ time: Math.floor(Date.now() / 1000) - 30 * 24 * 3600 }));

/** The notices the conversion's owner sees in the app. */
async function noticesOf(setup: ConversionSetup): Promise<AlertNotification[]> {
  const response = await call(server, { path: `/api/orgs/${setup.orgId}/notifications`, token: setup.owner.token });
  expect(response.status).toBe(200);
  return response.body.notifications as unknown as AlertNotification[];
}

const counted = async (setup: ConversionSetup) =>
  (await deliveryHours(setup.orgId, setup.conversionId, new Date(Date.now() - 3600_000))).reduce(
    (total, hour) => total + hour.delivered + hour.failed,
    0,
  );

test('one burst of refused events and nothing after it alerts within a minute; a burst under the threshold does not', async () => {
  const [quiet, fine] = await Promise.all([setUpConversion('meta_ads'), setUpConversion('meta_ads')]);
  // 30 of 30 refused (100 %, over the default 10 % of at least 20 events); 1 of 30 (3 %) under it.
  await publishFromApp(quiet, stale(30, `quiet${Date.now()}`));
  await publishFromApp(fine, [...leadEvents(29, `fine${Date.now()}`), ...stale(1, `fineold${Date.now()}`)]);
  worker();

  // The worker starts (slowly on a busy machine) and counts the burst; from then on, a minute at most.
  await until(async () => (await counted(quiet)) === 30, 90_000, 'the counters of the refused burst');
  await until(
    async () => (await noticesOf(quiet)).some((notice) => notice.kind === 'delivery_failures' && notice.state === 'open'),
    60_000,
    'the refused-share alert of a conversion that got one burst and nothing after it',
  );
  const [notice] = await noticesOf(quiet);
  expect(notice).toMatchObject({ kind: 'delivery_failures', subject: { type: 'conversion', id: quiet.conversionId } });
  expect(notice!.message).toMatch(/30 of 30 events in the last hour \(100 %\)/);

  // The other burst is counted, and evaluated as quickly: no alert for 3 %.
  await until(async () => (await counted(fine)) === 30, 60_000, 'the counters of the burst under the threshold');
  await new Promise((resolve) => setTimeout(resolve, 3000));
  expect(await noticesOf(fine)).toEqual([]);
});
