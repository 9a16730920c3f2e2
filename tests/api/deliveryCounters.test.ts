import { FieldValue } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { conversionRef } from '@/lib/server/repos/conversions';
import { createDeliveryCounters } from '@/lib/server/repos/deliveryCounters';
import { evaluateConversion } from '@/lib/server/alerts/delivery';
import { createTestOrganization, createTestUser } from '@/tests/fixtures/firebase';
import { deliveryHours, hourOf } from '@/lib/server/repos/hourTallies';
import { matchQualityData } from '@/lib/server/repos/matchQuality';
import { recordDelivery } from '@/lib/server/repos/deliveryLog';

// Issue 24 §2: a busy conversion's counters are summed in the worker and written about once a second, to the
// worker's own shard of the hour; readers sum the shards. Against the Firestore emulator.
jest.setTimeout(60_000);

async function conversionDocument() {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']]);
  const ref = adminDb().collection('organizations').doc(orgId).collection('conversions').doc();
  await ref.set({
    name: 'Leads',
    status: 'active',
    destination: { platform: 'meta_ads', account_id: '101', target_id: '555000111', target_name: 'Pixel' },
    parked: { held: 0, failed: 0 },
    created_at: FieldValue.serverTimestamp(),
  });
  return { orgId, id: ref.id };
}

const rows = (prefix: string, count: number, status: 'delivered' | 'rejected') =>
  Array.from({ length: count }, (_, index) => ({ id: `${prefix}-${index}`, status }));

test('300 records from two workers: each shard of the hour written about once a second, every event counted once', async () => {
  const { orgId, id } = await conversionDocument();
  const workers = [createDeliveryCounters({ worker: 'w1' }), createDeliveryCounters({ worker: 'w2' })];
  const hour = hourOf(new Date());
  const shards = workers.map((_, index) =>
    conversionRef(orgId, id)
      .collection('hours')
      .doc(`${hour}~w${index + 1}`),
  );
  /** Distinct update times seen on each shard: its writes, as far as a 20 ms sampler can tell them apart. */
  const writes = shards.map(() => new Set<string>());
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const snaps = await adminDb().getAll(...shards);
      snaps.forEach((snap, index) => snap.updateTime && writes[index]!.add(snap.updateTime.toDate().toISOString()));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = Date.now();
  for (let batch = 0; batch < 300; batch++) {
    const sink = workers[batch % 2]!;
    await recordDelivery(
      orgId,
      id,
      {
        test: false,
        latencyMs: 5,
        rows: [...rows(`b${batch}`, 9, 'delivered'), ...rows(`r${batch}`, 1, 'rejected')],
        matchCounts: { events: 10, keys: { email: 10, fbp: 4 } } as never,
      },
      sink,
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(workers.map((worker) => worker.stop()));
  sampling = false;
  await sampler;
  const seconds = (Date.now() - started) / 1000;
  // About one write a second per shard (the final flush adds one), never one per record.
  for (const seen of writes) expect(seen.size).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
  // The readers sum the shards: 2,700 delivered, 300 refused, match keys counted once.
  const hours = await deliveryHours(orgId, id, new Date(Date.now() - 3600_000));
  expect(hours.reduce((total, { delivered }) => total + delivered, 0)).toBe(2700);
  expect(hours.reduce((total, { failed }) => total + failed, 0)).toBe(300);
  const quality = await matchQualityData(orgId, id);
  expect(quality.day.events).toBe(3000);
  expect(quality.day.keys.email).toBe(3000);
  const conversion = await conversionRef(orgId, id).get();
  expect(conversion.get('last_delivery_at')).toBeTruthy();
  await expect(evaluateConversion(orgId, id)).resolves.toBeUndefined();
});

test('a record that parks events resolves only once their count is on the conversion', async () => {
  const { orgId, id } = await conversionDocument();
  const counters = createDeliveryCounters({ worker: 'w1', conversionEveryMs: 1500 });
  const event = {
    id: 'p-1',
    name: 'Lead',
    time: 1,
    value: 1,
    currency: 'USD',
    user: {},
    clickIds: {},
    context: { actionSource: 'website' },
  };
  // A write of the conversion's document just happened: the next is due in 1.5 s, and the record waits for it.
  await recordDelivery(orgId, id, { test: false, latencyMs: 1, rows: rows('d', 1, 'delivered') }, counters);
  await counters.flush();
  await recordDelivery(
    orgId,
    id,
    {
      test: false,
      latencyMs: 1,
      rows: [{ id: 'p-1', status: 'failed' }],
      parked: [{ reason: 'failed', why: 'timed out', events: [event as never] }],
    },
    counters,
  );
  expect((await conversionRef(orgId, id).get()).get('parked.failed')).toBe(1);
  expect((await conversionRef(orgId, id).collection('parked').get()).size).toBe(1);
  await counters.stop();
});

test('a commit that lands but answers with an error is tried again without counting anything twice', async () => {
  const { orgId, id } = await conversionDocument();
  let lose = 1;
  // The commit lands, then its answer is lost (as a DEADLINE_EXCEEDED after the server applied it).
  const counters = createDeliveryCounters({
    worker: 'w1',
    commit: async (batch) => {
      await batch.commit();
      if (lose-- > 0) throw Object.assign(new Error('deadline exceeded'), { code: 4 });
    },
  });
  const hour = hourOf(new Date());
  const counts = { hour, tally: { delivered: 5, failed: 1 }, deliveredAt: new Date(), parked: { failed: 2 } };
  const parked = counters.add(orgId, id, counts);
  await counters.flush();
  await counters.flush();
  await parked;
  await counters.add(orgId, id, { ...counts, tally: { delivered: 3 }, parked: {} });
  await counters.flush();
  const hours = await deliveryHours(orgId, id, new Date(Date.now() - 3600_000));
  expect(hours).toEqual([{ hour, delivered: 8, failed: 1, notSent: 0 }]);
  expect((await conversionRef(orgId, id).get()).get('parked.failed')).toBe(2);
  await counters.stop();
});

test('a write that keeps failing lets its waiting messages go after a few tries, and its counts land once when it works', async () => {
  const { orgId, id } = await conversionDocument();
  let failing = true;
  const counters = createDeliveryCounters({
    worker: 'w1',
    maxTries: 3,
    conversionEveryMs: 0,
    commit: (batch) => (failing ? Promise.reject(Object.assign(new Error('unavailable'), { code: 14 })) : batch.commit()),
  });
  const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const parked = counters.add(orgId, id, { hour: hourOf(new Date()), tally: { failed: 1 }, deliveredAt: null, parked: { failed: 1 } });
  let settled = false;
  void parked.finally(() => (settled = true));
  await counters.flush();
  await counters.flush();
  expect(settled).toBe(false);
  await counters.flush();
  // Let go as done (their records are written): failed, the messages would come again and count twice.
  await expect(parked).resolves.toBeUndefined();
  failing = false;
  await counters.flush();
  await counters.flush();
  expect((await conversionRef(orgId, id).get()).get('parked.failed')).toBe(1);
  await counters.stop();
  errors.mockRestore();
});

test('three workers eager to write one conversion: its document is written at most once a second, and every count lands', async () => {
  const { orgId, id } = await conversionDocument();
  // Each worker would write the conversion's document at every flush (ten a second) if it could.
  const workers = ['w1', 'w2', 'w3'].map((worker) => createDeliveryCounters({ worker, hourEveryMs: 100, conversionEveryMs: 0 }));
  const parked: Array<Promise<void>> = [];
  const until = Date.now() + 3000;
  for (let index = 0; Date.now() < until; index++) {
    const counts = { hour: hourOf(new Date()), tally: { failed: 1 }, deliveredAt: new Date(), parked: { failed: 1 } };
    parked.push(workers[index % 3]!.add(orgId, id, counts));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(parked);
  const conversion = await conversionRef(orgId, id).get();
  expect(conversion.get('parked.failed')).toBe(parked.length);
  // Every write that carried parked counts made a marker in its commit: their times are the document's writes.
  const markers = await conversionRef(orgId, id).collection('counter_writes').get();
  const times = markers.docs.map((doc) => doc.createTime.toMillis()).sort((a, b) => a - b);
  expect(times.length).toBeGreaterThanOrEqual(3);
  for (let index = 1; index < times.length; index++) expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(1000);
});
