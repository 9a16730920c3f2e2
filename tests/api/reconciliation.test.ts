import { createHash, randomBytes } from 'node:crypto';
import conversionReconciliation from '@/pages/api/orgs/[orgId]/conversions/[id]/reconciliation';
import orgReconciliation from '@/pages/api/orgs/[orgId]/reconciliation';
import deliveriesRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/deliveries';
import { Timestamp } from 'firebase-admin/firestore';
import type { DeliveryLogAnswer } from '@/lib/shared/conversions/conversion';
import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import type { ConversionReconciliation, ReconciliationRow } from '@/lib/shared/conversions/reconciliation';
import { deliverBatch } from '@/lib/server/delivery/deliver';
import { reconcileOrganization, startReconcilePoller } from '@/lib/server/counted/reconcile';
import { claimReconcile, finishReconcile, renewReconcile } from '@/lib/server/repos/reconciliation';
import { googleOAuth } from '@/lib/server/connectors/google/oauth';
import { sealCredential } from '@/lib/server/credentials';
import { getIntegration, loadIntegration, replaceCredential } from '@/lib/server/repos/integrations';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { getConversion } from '@/lib/server/repos/conversions';
import { createConversionRouter } from '@/lib/server/delivery/router';
import { pull } from '@/lib/server/queue/pull';
import { SUBSCRIPTIONS } from '@/lib/server/queue/pubsub';
import { createConversion, retryParked } from '@/lib/server/services/conversions';
import { customerIoEnv, startFakeCustomerIo, type FakeCustomerIo } from '@/sandbox/customerio';
import { consentTo, platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { setUpConversion, type ConversionSetup } from '@/tests/api/helpers/conversions';
import { metaReportOptions } from '@/lib/server/connectors/meta_ads/report';
import { addDays, dayIn, instantOf } from '@/lib/shared/connections/windows';
import { GRAPH_VERSION, META_DEMO_TOKEN } from '@/sandbox/meta_ads/accounts';
import { call, closeAll, serveHandler, type TestServer } from '@/tests/api/helpers/server';
import { until } from '@/tests/api/helpers/until';
import { parkedCounts } from '@/lib/server/repos/parkedEvents';

// "Counted by the platform": conversions delivered to the sandbox's platforms, their reports read back by the
// reading job, and what the API answers about each day (what we sent, what the platform received of it, its own
// figures with their scope), the week's received share and the alert on a loss.
jest.setTimeout(120_000);

let platforms: FakePlatforms;
let customerIo: FakeCustomerIo;
let s: Record<'one' | 'all' | 'deliveries', TestServer>;
let setup: ConversionSetup;
let outsider: TestUser;
let otherOrg: string;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const today = new Date().toISOString().slice(0, 10);
/** The sandbox's Microsoft account 301 keeps Eastern time: its reports' days are Eastern days. */
const EASTERN = 'America/New_York';
/** The sandbox's Google customer 5556667778 (SANDBOX_TARGETS) keeps Berlin time; its segments.date are Berlin days. */
const BERLIN = 'Europe/Berlin';
/** The Eastern day the conversions of beforeAll were sent on (the UTC day before between 00:00 UTC and Eastern midnight). */
let sentDay: string;
/** Seven hours after `sentDay` ended in Eastern time: past Microsoft's six-hour lag, at any hour the suite runs. */
const afterMicrosoftLag = () => new Date(instantOf(addDays(sentDay, 1), '00:00', EASTERN) + 7 * 3_600_000);

let serial = 0;
/** A website's buyer with a Microsoft click: what most tests here send. */
const buyerWithClick = (): Partial<ConversionEvent> => ({
  user: { email: sha256(`buyer${serial}@example.com`) },
  clickIds: { msclkid: randomBytes(16).toString('hex') },
  context: { actionSource: 'website' },
});

/** `count` purchases of 20 USD ten minutes ago, ids `rec-{serial}`; `make` gives each its people and clicks (`serial` is its own). */
function purchases(count: number, make: (index: number) => Partial<ConversionEvent> = buyerWithClick): ConversionEvent[] {
  return Array.from({ length: count }, (_, index) => {
    serial += 1;
    return conversionEventSchema.parse({
      id: `rec-${serial}`,
      name: 'Purchase',
      time: Math.floor(Date.now() / 1000) - 600,
      value: 20,
      currency: 'USD',
      user: {},
      clickIds: {},
      context: { actionSource: 'system_generated' },
      ...make(index),
    });
  });
}

/** A second conversion of the same organization, app and destination target as `setup`'s, sending `events`. */
async function createConversionFor(setup: ConversionSetup, name: string, events: string[]): Promise<string> {
  const conversion = await getConversion(setup.orgId, setup.conversionId);
  const created = await createConversion(setup.orgId, 'growth', setup.owner.uid, {
    name,
    source: conversion.source,
    destination: {
      destinationId: conversion.destination.destinationId,
      accountId: conversion.destination.accountId,
      targetId: conversion.destination.targetId,
    },
    mapping: { ...conversion.mapping, events },
  });
  return created.id;
}

const path = (orgId: string, conversionId?: string) =>
  conversionId ? `/api/orgs/${orgId}/conversions/${conversionId}/reconciliation` : `/api/orgs/${orgId}/reconciliation`;

/** Saves the conversion's alert threshold, as `token`'s user. */
const saveThreshold = (threshold: number, token = setup.owner.token) =>
  call(s.one, { method: 'PUT', path: path(setup.orgId, setup.conversionId), token, body: { threshold } });

async function read(token = setup.owner.token): Promise<ConversionReconciliation> {
  const response = await call(s.one, { path: path(setup.orgId, setup.conversionId), token });
  expect(response.status).toBe(200);
  return response.body.reconciliation as unknown as ConversionReconciliation;
}

/** The day the Microsoft conversions were sent on, as Microsoft's account counts days. */
const todayOf = (reconciliation: ConversionReconciliation) => reconciliation.days.find((day) => day.date === sentDay)!;

const openIncident = async () =>
  (
    await adminDb()
      .collection('organizations')
      .doc(setup.orgId)
      .collection('incidents')
      .where('kind', '==', 'counted_share_low')
      .where('status', '==', 'open')
      .get()
  ).size;

beforeAll(async () => {
  [platforms, customerIo] = await Promise.all([startFakePlatforms({ appUrl: 'http://localhost:3999' }), startFakeCustomerIo()]);
  Object.assign(process.env, platformsEnv(platforms), customerIoEnv(customerIo));
  s = {
    one: await serveHandler(conversionReconciliation, undefined, '/api/orgs/[orgId]/conversions/[id]/reconciliation'),
    all: await serveHandler(orgReconciliation, undefined, '/api/orgs/[orgId]/reconciliation'),
    deliveries: await serveHandler(deliveriesRoute),
  };
  setup = await setUpConversion('microsoft_ads');
  outsider = await createTestUser();
  otherOrg = await createTestOrganization([[outsider, 'owner']]);
  const conversion = await getConversion(setup.orgId, setup.conversionId);
  sentDay = dayIn(EASTERN);
  const result = await deliverBatch(setup.orgId, conversion, purchases(10));
  expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(10);
});
// Back to the wall clock after a test that moved the reports' clock.
afterEach(() => platforms.reporting.clock.set(null));
afterAll(async () => {
  await closeAll(s);
  await Promise.all([platforms.close(), customerIo.close()]);
});

test('before any read: not read yet, no days', async () => {
  const reconciliation = await read();
  expect(reconciliation.summary.state).toBe('not_read');
  expect(reconciliation.days).toEqual([]);
});

test("within Microsoft's lag, today shows what we sent and says it is not final", async () => {
  await reconcileOrganization(setup.orgId);
  const reconciliation = await read();
  expect(reconciliation.summary.state).toBe('read');
  expect(todayOf(reconciliation)).toEqual({
    date: sentDay,
    sent: 10,
    received: 10,
    refused: 0,
    // Microsoft reports no received count; its goal's figure is every conversion sent to it, said so.
    platform: {
      received: null,
      attributed: { count: 0, scope: expect.stringMatching(/^recorded in goal “.+”, from every conversion sent to it$/) },
    },
    final: false,
    notes: ['Microsoft records offline conversions 2–6 hours after upload: today is not final yet.'],
  });
  // Nothing final yet: no share, no alert.
  expect(reconciliation.summary.week.share).toBeNull();
});

/**
 * Microsoft reports its account's days and refuses a day after the account's today (the sandbox too, by
 * its reports' clock). The tests of a finished day stand seven hours after the Eastern day the conversions
 * were sent on: the reading and the sandbox's clock both, so they run at any hour of the day.
 */
const readAfterMicrosoftLag = (orgId: string, options: { onCall?: () => void } = {}) => {
  const now = afterMicrosoftLag();
  platforms.reporting.clock.set(now);
  return reconcileOrganization(orgId, { now, ...options });
};

test('with nothing lost, 100 % received once the lag has passed; the goal recorded them all', async () => {
  platforms.reporting.set({ microsoft: { lagHours: 0, dropShare: 0 } });
  await readAfterMicrosoftLag(setup.orgId);
  const reconciliation = await read();
  expect(todayOf(reconciliation)).toMatchObject({ sent: 10, received: 10, final: true, notes: [] });
  expect(todayOf(reconciliation).platform.attributed?.count).toBe(10);
  expect(reconciliation.summary.week).toEqual({ sent: 10, received: 10, share: 1 });
});

test('Microsoft recording 20 % fewer is attribution, not a loss: shown with what drives it, and no alert, whatever the threshold', async () => {
  const saved = await saveThreshold(100);
  expect(saved.status).toBe(200);
  platforms.reporting.set({ microsoft: { lagHours: 0, dropShare: 0.2 } });
  await readAfterMicrosoftLag(setup.orgId);
  const reconciliation = await read();
  expect(reconciliation.threshold).toBe(100);
  const day = todayOf(reconciliation);
  expect(day).toMatchObject({ sent: 10, received: 10, final: true, notes: [] });
  expect(day.platform.attributed?.count).toBe(8);
  expect(reconciliation.attribution).toMatch(/^Microsoft records an offline conversion only for a known, unexpired ad click/);
  // The days before hold nothing: the day is the one the conversions were sent on.
  expect(reconciliation.days.map((item) => item.date)).toEqual([sentDay]);
  expect(reconciliation.summary.week).toEqual({ sent: 10, received: 10, share: 1 });
  expect(await openIncident()).toBe(0);

  const list = await call(s.all, { path: path(setup.orgId), token: setup.owner.token });
  expect(list.status).toBe(200);
  const rows = list.body.conversions as ReconciliationRow[];
  expect(rows.map((row) => [row.id, row.summary.week.share])).toEqual([[setup.conversionId, 1]]);
  platforms.reporting.set({ microsoft: { dropShare: 0 } });
});

test('one goals report per account answers every conversion of it', async () => {
  let calls = 0;
  const result = await readAfterMicrosoftLag(setup.orgId, { onCall: () => (calls += 1) });
  expect(result).toMatchObject({ conversions: 1, accounts: 1 });
  // Account/Query, Submit, Poll (Pending), Poll (Success), download.
  expect(calls).toBe(5);
});

test("Microsoft's days are its account's: conversions sent at 02:00 UTC count on the Eastern day before, and so do ours", async () => {
  const eastern = await setUpConversion('microsoft_ads');
  const conversion = await getConversion(eastern.orgId, eastern.conversionId);
  platforms.reporting.set({ microsoft: { lagHours: 0, dropShare: 0 } });
  const sent = purchases(4);
  const result = await deliverBatch(eastern.orgId, conversion, sent);
  expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(4);

  // Sent, as far as both sides know, at 02:00 UTC three days ago: 21:00 or 22:00 the day before in Eastern
  // time (clear of the days beforeAll's conversions, to the same account and goal, were sent on).
  const utcDay = addDays(today, -3);
  const hour = `${utcDay}T02`;
  const easternDay = addDays(today, -4);
  const clicks = new Set(sent.map((event) => event.clickIds.msclkid));
  for (const entry of platforms.conversions.list('microsoft')) {
    if (clicks.has(String(entry.event.MicrosoftClickId))) entry.receivedAt = Date.parse(`${hour}:00:00Z`);
  }
  const hours = adminDb()
    .collection('organizations')
    .doc(eastern.orgId)
    .collection('conversions')
    .doc(eastern.conversionId)
    .collection('hours');
  for (const doc of (await hours.get()).docs) {
    await hours.doc(doc.id.replace(String(doc.get('hour')), hour)).set({ ...doc.data(), hour });
    await doc.ref.delete();
  }

  await reconcileOrganization(eastern.orgId);
  const response = await call(s.one, { path: path(eastern.orgId, eastern.conversionId), token: eastern.owner.token });
  const { days, summary } = response.body.reconciliation as unknown as ConversionReconciliation;
  // The account's day holds both sides; our UTC day is not a day of its own with nothing attributed.
  expect(days.find((day) => day.date === easternDay)).toMatchObject({ sent: 4, received: 4, final: true, notes: [] });
  expect(days.find((day) => day.date === easternDay)!.platform.attributed?.count).toBe(4);
  expect(days.find((day) => day.date === utcDay)).toBeUndefined();
  expect(summary.week).toEqual({ sent: 4, received: 4, share: 1 });
});

test('another organization sees neither the conversion nor the list; bad thresholds change nothing', async () => {
  expect((await call(s.one, { path: path(setup.orgId, setup.conversionId), token: outsider.token })).status).toBe(404);
  expect((await call(s.all, { path: path(setup.orgId), token: outsider.token })).status).toBe(404);
  const put = await saveThreshold(50, outsider.token);
  expect(put.status).toBe(404);
  // The outsider's own organization has no such conversion.
  expect((await call(s.one, { path: path(otherOrg, setup.conversionId), token: outsider.token })).status).toBe(404);
  const own = await call(s.all, { path: path(otherOrg), token: outsider.token });
  expect(own.body).toEqual({ conversions: [] });

  const before = (await read()).threshold;
  const bad = await saveThreshold(0);
  expect(bad.status).toBe(400);
  expect(bad.body.fieldErrors).toHaveProperty('threshold');
  expect((await read()).threshold).toBe(before);
});

test('one worker at a time reads an organization, and not again before its interval', async () => {
  const { orgId } = setup;
  const owner = await claimReconcile(orgId, 60_000, 3_600_000);
  expect(owner).toEqual(expect.any(String));
  // Leased: a second worker leaves it.
  expect(await claimReconcile(orgId, 60_000, 3_600_000)).toBeNull();
  await finishReconcile(orgId, owner!);
  // Read a moment ago: not due before the interval…
  expect(await claimReconcile(orgId, 60_000, 3_600_000)).toBeNull();
  // …and due once it has passed.
  expect(await claimReconcile(orgId, 60_000, 3_600_000, new Date(Date.now() + 3_600_001))).toEqual(expect.any(String));
});

test('a worker whose lease ran out neither renews nor ends the lease another worker took over', async () => {
  const { orgId } = setup;
  const later = new Date(Date.now() + 3 * 3_600_000);
  const slow = (await claimReconcile(orgId, 60_000, 3_600_000, later))!;
  expect(slow).toEqual(expect.any(String));
  // The slow worker's minute runs out; a second worker takes the organization.
  const takenAt = new Date(later.getTime() + 60_001);
  const second = (await claimReconcile(orgId, 60_000, 3_600_000, takenAt))!;
  expect(second).toEqual(expect.any(String));
  expect(second).not.toBe(slow);
  // The slow one finishing leaves the second's lease: a third worker still finds it leased.
  expect(await renewReconcile(orgId, slow, 60_000, takenAt)).toBe(false);
  expect(await finishReconcile(orgId, slow, takenAt)).toBe(false);
  expect(await claimReconcile(orgId, 60_000, 3_600_000, new Date(takenAt.getTime() + 1000))).toBeNull();
  // The owner renews and ends its own lease.
  expect(await renewReconcile(orgId, second, 60_000, takenAt)).toBe(true);
  expect(await finishReconcile(orgId, second, takenAt)).toBe(true);
  // A reading stops before its next account once its lease is lost (no account read: the renewal says no).
  let calls = 0;
  const result = await reconcileOrganization(orgId, { renew: async () => false, onCall: () => (calls += 1) });
  expect(calls).toBe(0);
  expect(result.conversions).toBe(0);
});

test('a destination login that cannot read reports asks for it, and still delivers', async () => {
  const google = await setUpConversion('google_ads');
  // Reconnected with the Data Manager scope only: conversions go, reports are refused (401).
  const auth = googleOAuth('google_ads', ['https://www.googleapis.com/auth/datamanager']);
  const redirect = 'http://localhost:3999/addConversionDestination';
  const returned = await consentTo(auth.authorizeUrl('state-reconcile', redirect));
  const connection = await auth.exchangeCode(returned.searchParams.get('code')!, redirect);
  const { credentialId } = await loadIntegration(google.orgId, 'destination', google.destinationId);
  await replaceCredential(google.orgId, 'destination', google.destinationId, {
    credentialId,
    sealedCredential: sealCredential(google.orgId, credentialId, connection.credential),
    accountName: 'Data Manager only',
    uid: google.owner.uid,
  });
  await reconcileOrganization(google.orgId);
  await reconcileOrganization(google.orgId);
  const response = await call(s.one, { path: path(google.orgId, google.conversionId), token: google.owner.token });
  const { summary } = response.body.reconciliation as unknown as ConversionReconciliation;
  expect(summary.state).toBe('needs_scope');
  expect(summary.message).toContain('Reconnect the destination and allow reading reports');
  // Not a dead login: the destination stays active and its conversion keeps sending.
  expect((await getIntegration(google.orgId, 'destination', google.destinationId)).status).toBe('active');
  const conversion = await getConversion(google.orgId, google.conversionId);
  expect(conversion.status).toBe('active');
});

test("the worker's poller reads every organization in its round", async () => {
  const state = adminDb().collection('organizations').doc(otherOrg).collection('reconcile').doc('state');
  expect((await state.get()).exists).toBe(false);
  const poller = startReconcilePoller({ intervalMs: 300 });
  try {
    await until(async () => Boolean((await state.get()).get('last_at')), 30_000, "the poller's round to reach the other organization", 200);
  } finally {
    await poller.stop();
  }
  expect((await state.get()).get('last_at')).toBeTruthy();
});

/** One GET of the sandbox's Graph API as the demo login. */
async function graph(path: string, params: Record<string, string>) {
  const url = new URL(`${platforms.url}/meta/graph/${GRAPH_VERSION}${path}`);
  url.search = new URLSearchParams({ ...params, access_token: META_DEMO_TOKEN }).toString();
  return (await (await fetch(url)).json()) as {
    data: Array<{ data?: Array<{ value: string; count: number }> }>;
    paging?: { next?: string };
    error?: { code: number };
  };
}

/** Dates a conversion's hour counters at `hour` (YYYY-MM-DDTHH, UTC), as if everything had been sent then. */
async function moveHoursTo(orgId: string, conversionId: string, hour: string) {
  const hours = adminDb().collection('organizations').doc(orgId).collection('conversions').doc(conversionId).collection('hours');
  for (const doc of (await hours.get()).docs) {
    await hours.doc(doc.id.replace(String(doc.get('hour')), hour)).set({ ...doc.data(), hour });
    await doc.ref.delete();
  }
}

/** Reads at `now`, the sandbox's reports at the same instant (its clock moved there). */
const readAt = (orgId: string, now: Date, options: { onCall?: () => void } = {}) => {
  platforms.reporting.clock.set(now);
  return reconcileOrganization(orgId, { now, ...options });
};

async function reconciliationOf(setup: ConversionSetup) {
  const response = await call(s.one, { path: path(setup.orgId, setup.conversionId), token: setup.owner.token });
  expect(response.status).toBe(200);
  return response.body.reconciliation as unknown as ConversionReconciliation;
}

describe('Google and Meta', () => {
  test('Google attributes only uploads that matched a click or customer: information beside what it received, never a loss', async () => {
    const google = await setUpConversion('google_ads');
    const conversion = await getConversion(google.orgId, google.conversionId);
    // Six with a click id; four from strangers (an email no Google customer has, no click id).
    const sent = purchases(10, (index) =>
      index < 6 ? { clickIds: { gclid: `Cj0-rec-${serial}` } } : { user: { email: sha256(`stranger${serial}@example.com`) } },
    );
    const berlinDay = dayIn(BERLIN);
    const result = await deliverBatch(google.orgId, conversion, sent);
    expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(10);
    // Four hours after the customer's day ended: past Google's three-hour lag.
    await readAt(google.orgId, new Date(instantOf(addDays(berlinDay, 1), '00:00', BERLIN) + 4 * 3_600_000));
    const reconciliation = await reconciliationOf(google);
    expect(reconciliation.summary.timeZone).toBe(BERLIN);
    const day = reconciliation.days.find((item) => item.date === berlinDay)!;
    expect(day).toMatchObject({ sent: 10, received: 10, refused: 0, final: true, notes: [] });
    // Google's received count is empty on purpose; its conversion action's figure is every upload to it.
    expect(day.platform).toEqual({
      received: null,
      attributed: { count: 6, scope: expect.stringMatching(/^attributed to ads in conversion action “.+”, from every upload to it$/) },
    });
    expect(reconciliation.attribution).toMatch(/gclid/);
    expect(reconciliation.summary.week).toEqual({ sent: 10, received: 10, share: 1 });
  });

  test("Meta's pixel stats short of what we sent: a loss on the right day, said so, and the alert fires under the threshold, then resolves", async () => {
    const meta = await setUpConversion('meta_ads');
    const conversion = await getConversion(meta.orgId, meta.conversionId);
    platforms.reporting.set({ meta: { missingShare: 0.2, attributionLagHours: 0 } });
    const accountDay = dayIn(EASTERN);
    const result = await deliverBatch(
      meta.orgId,
      conversion,
      purchases(10, () => ({ user: { email: sha256(`meta${serial}@example.com`) } })),
    );
    expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(10);

    await reconcileOrganization(meta.orgId);
    let day = (await reconciliationOf(meta)).days.find((item) => item.date === accountDay)!;
    // Not final: the pixel's count is shown with its scope, and nothing is called lost yet.
    expect(day).toMatchObject({ sent: 10, received: 10, final: false });
    expect(day.platform.received).toEqual({
      count: 8,
      scope: 'Purchase server events at the pixel, from all its server senders (this conversion, other conversions, other tools)',
    });
    expect(day.notes).toEqual(['Meta attributes conversions to ads up to a day later: today is not final yet.']);

    // A day and an hour after the account's day ended, Meta's figures for it are final: the loss is named.
    const final = new Date(instantOf(addDays(accountDay, 1), '00:00', EASTERN) + 25 * 3_600_000);
    await readAt(meta.orgId, final);
    const reconciliation = await reconciliationOf(meta);
    day = reconciliation.days.find((item) => item.date === accountDay)!;
    expect(day).toMatchObject({ sent: 10, received: 8, refused: 0, final: true });
    expect(day.notes[0]).toMatch(
      /^At least 2 of the events Meta accepted never arrived: it counted 8 Purchase server events at the pixel, .+ fewer than the 10 this conversion sent alone\./,
    );
    expect(reconciliation.summary.week).toEqual({ sent: 10, received: 8, share: 0.8 });
    expect(reconciliation.threshold).toBe(95);
    const incident = () =>
      adminDb()
        .collection('organizations')
        .doc(meta.orgId)
        .collection('incidents')
        .where('kind', '==', 'counted_share_low')
        .where('status', '==', 'open')
        .get();
    const open = await incident();
    expect(open.size).toBe(1);
    expect(open.docs[0]!.get('message')).toMatch(
      /^Meta Ads received 8 of the 10 events this conversion sent over the last 7 days \(80 %\), under its 95 % threshold: 2 were not sent \(refused by Meta Ads\) or never arrived\./,
    );

    // The day's loss links to that day's calls in the delivery log: a day of the account's zone.
    const log = (token: string, day: string) => call(s.deliveries, { token, query: { orgId: meta.orgId, id: meta.conversionId, day } });
    const thatDay = await log(meta.owner.token, accountDay);
    expect(thatDay.status).toBe(200);
    const answer = thatDay.body as unknown as DeliveryLogAnswer;
    expect(answer.day).toEqual({ date: accountDay, timeZone: EASTERN });
    expect(answer.deliveries.flatMap((record) => record.rows)).toHaveLength(10);
    expect(((await log(meta.owner.token, addDays(accountDay, -2))).body as unknown as DeliveryLogAnswer).deliveries).toEqual([]);
    const bad = await log(meta.owner.token, '2026-02-30');
    expect(bad.status).toBe(400);
    expect(bad.body.fieldErrors).toHaveProperty('day');
    expect((await log(outsider.token, accountDay)).status).toBe(404);

    // A threshold under the share: the next read resolves it.
    await call(s.one, { method: 'PUT', path: path(meta.orgId, meta.conversionId), token: meta.owner.token, body: { threshold: 80 } });
    await readAt(meta.orgId, final);
    expect((await incident()).size).toBe(0);
    platforms.reporting.reset();
  });

  test("the site's browser pixel fires beside our events: Meta's received counts our server events only", async () => {
    const meta = await setUpConversion('meta_ads');
    const conversion = await getConversion(meta.orgId, meta.conversionId);
    platforms.conversions.reset();
    // The site's own pixel fires for every purchase too, and 2 of our 10 never reach the stats: all
    // sources together, the stats show 18, more than we sent, and would hide the loss.
    platforms.reporting.set({ meta: { browserFires: 1, missingShare: 0.2, attributionLagHours: 0 } });
    const accountDay = dayIn(EASTERN);
    try {
      const result = await deliverBatch(
        meta.orgId,
        conversion,
        purchases(10, () => ({ user: { email: sha256(`browser${serial}@example.com`) } })),
      );
      expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(10);
      const purchasesIn = async (params: Record<string, string>) => {
        const stats = await graph('/555000111/stats', { aggregation: 'event', ...params });
        return stats.data.flatMap((hour) => hour.data ?? []).reduce((sum, item) => sum + (item.value === 'Purchase' ? item.count : 0), 0);
      };
      expect(await purchasesIn({})).toBe(18);
      expect(await purchasesIn({ event_source: 'WEB_ONLY' })).toBe(10);
      expect(await purchasesIn({ event_source: 'SERVER_ONLY' })).toBe(8);
      expect((await graph('/555000111/stats', { aggregation: 'event', event_source: 'BOTH' })).error?.code).toBe(100);

      await reconcileOrganization(meta.orgId);
      const day = (await reconciliationOf(meta)).days.find((item) => item.date === accountDay)!;
      expect(day).toMatchObject({ sent: 10 });
      expect(day.platform.received?.count).toBe(8);
    } finally {
      platforms.reporting.reset();
    }
  });

  test('an event parked as failed, then retried and delivered, counts once as sent and once as received', async () => {
    const meta = await setUpConversion('meta_ads');
    const conversion = await getConversion(meta.orgId, meta.conversionId);
    platforms.conversions.fail('meta', { status: 500, seconds: 60 });
    const [event] = purchases(1, () => ({ user: { email: sha256(`parked${serial}@example.com`) } }));
    const accountDay = dayIn(EASTERN);
    const first = await deliverBatch(meta.orgId, conversion, [event!], { retry: { attempts: 1, baseMs: 1, maxMs: 1 } });
    platforms.conversions.failures.delete('meta');
    expect(first.rows.map((row) => row.status)).toEqual(['failed']);

    // Retry publishes it again; the delivery worker's router takes it from the queue and delivers it.
    expect(await retryParked(meta.orgId, meta.conversionId, 'failed')).toBe(1);
    const router = createConversionRouter({ lingerMs: 10 });
    const puller = pull(SUBSCRIPTIONS.delivery, router.handle);
    try {
      const atMeta = () => platforms.conversions.list('meta').some((entry) => String(entry.key).endsWith(`|${event!.id}`));
      await until(atMeta, 30_000, 'the retried event at Meta', 100);
    } finally {
      await router.drain();
      await puller.stop();
    }
    expect((await parkedCounts(meta.orgId, meta.conversionId)).failed).toBe(0);

    await reconcileOrganization(meta.orgId);
    const day = (await reconciliationOf(meta)).days.find((item) => item.date === accountDay)!;
    expect(day).toMatchObject({ sent: 1, received: 1 });
  });

  test('a first read of Meta covers all 30 days: its insights (a day a row) and pixel stats (an hour a row) are read page by page', async () => {
    const meta = await setUpConversion('meta_ads');
    const conversion = await getConversion(meta.orgId, meta.conversionId);
    platforms.conversions.reset();
    platforms.reporting.set({ meta: { attributionLagHours: 0, missingShare: 0 } });
    const result = await deliverBatch(
      meta.orgId,
      conversion,
      purchases(30, () => ({ user: { email: sha256(`meta${serial}@example.com`) } })),
    );
    expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(30);
    // The pixel received one of them on each of the ad account's last 30 days (today's at its midnight, the
    // others at its noon).
    const accountToday = dayIn(EASTERN);
    const received = platforms.conversions.list('meta');
    expect(received).toHaveLength(30);
    received.forEach((entry, index) => {
      entry.receivedAt = instantOf(addDays(accountToday, -index), index === 0 ? '00:00' : '12:00', EASTERN);
    });

    // Graph pages every edge, 25 rows by default: one page holds neither 30 days nor 30 hours.
    const start = String(instantOf(addDays(accountToday, -29), '00:00', EASTERN) / 1000);
    const firstStats = await graph('/555000111/stats', { aggregation: 'event', start_time: start });
    expect(firstStats.data).toHaveLength(25);
    expect(firstStats.paging?.next).toBeTruthy();
    const firstInsights = await graph('/act_101/insights', {
      fields: 'actions',
      level: 'account',
      time_increment: '1',
      time_range: JSON.stringify({ since: addDays(accountToday, -29), until: accountToday }),
    });
    expect(firstInsights.data).toHaveLength(25);
    expect(firstInsights.paging?.next).toBeTruthy();
    // A pixel of no account of the login's is refused as Graph refuses an unreachable object.
    expect((await graph('/555000999/stats', { aggregation: 'event' })).error?.code).toBe(100);

    const realPageSize = metaReportOptions.pageSize;
    metaReportOptions.pageSize = 10;
    let calls = 0;
    try {
      await reconcileOrganization(meta.orgId, { onCall: () => (calls += 1) });
    } finally {
      metaReportOptions.pageSize = realPageSize;
      platforms.reporting.reset();
    }
    // The ad account's time zone, three pages of insights (30 days), three of the pixel's stats (30 hours).
    expect(calls).toBe(7);
    const { days } = await reconciliationOf(meta);
    expect(days.map((day) => day.date)).toEqual(Array.from({ length: 30 }, (_, index) => addDays(accountToday, index - 29)));
    for (const day of days) expect([day.platform.received?.count, day.platform.attributed?.count]).toEqual([1, 1]);
  });

  test("Meta's days are its ad account's: conversions sent at 02:00 UTC count on the Eastern day before, beside what Meta received and attributed", async () => {
    const meta = await setUpConversion('meta_ads');
    const conversion = await getConversion(meta.orgId, meta.conversionId);
    platforms.conversions.reset();
    platforms.reporting.set({ meta: { attributionLagHours: 0, missingShare: 0 } });
    try {
      const result = await deliverBatch(
        meta.orgId,
        conversion,
        purchases(4, () => ({ user: { email: sha256(`eastern${serial}@example.com`) } })),
      );
      expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(4);

      // Sent, as far as both sides know, at 02:00 UTC three days ago: 21:00 or 22:00 the day before in New York.
      const utcDay = addDays(today, -3);
      const easternDay = addDays(today, -4);
      for (const entry of platforms.conversions.list('meta')) entry.receivedAt = Date.parse(`${utcDay}T02:00:00Z`);
      await moveHoursTo(meta.orgId, meta.conversionId, `${utcDay}T02`);

      // Noon in New York two days later: past Meta's day of lag, at whatever hour the suite runs.
      await readAt(meta.orgId, new Date(instantOf(addDays(easternDay, 2), '12:00', EASTERN)));
      const { days, summary } = await reconciliationOf(meta);
      const eastern = days.find((day) => day.date === easternDay)!;
      expect(eastern).toMatchObject({ sent: 4, received: 4, final: true, notes: [] });
      expect([eastern.platform.received?.count, eastern.platform.attributed?.count]).toEqual([4, 4]);
      expect(days.find((day) => day.date === utcDay)).toBeUndefined();
      expect(summary.week).toEqual({ sent: 4, received: 4, share: 1 });
      // The page says which days these are.
      expect(summary.timeZone).toBe(EASTERN);
    } finally {
      platforms.reporting.reset();
    }
  });

  test("Google's days are its customer's: conversions sent at 02:00 UTC count on the Eastern day before, beside what Google attributed", async () => {
    // Acme Shoes (1234567890, under the sandbox's manager) keeps Eastern time.
    const google = await setUpConversion('google_ads', {}, { accountId: '1234567890', targetId: '9001' });
    const conversion = await getConversion(google.orgId, google.conversionId);
    const sent = purchases(4, () => ({ clickIds: { gclid: `Cj0-eastern-${serial}` } }));
    const result = await deliverBatch(google.orgId, conversion, sent);
    expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(4);

    const utcDay = addDays(today, -3);
    const easternDay = addDays(today, -4);
    for (const entry of platforms.conversions.list('google')) {
      if (entry.key.startsWith('1234567890/')) entry.receivedAt = Date.parse(`${utcDay}T02:00:00Z`);
    }
    await moveHoursTo(google.orgId, google.conversionId, `${utcDay}T02`);

    await readAt(google.orgId, new Date(instantOf(addDays(easternDay, 2), '12:00', EASTERN)));
    const { days, summary } = await reconciliationOf(google);
    const eastern = days.find((day) => day.date === easternDay)!;
    expect(eastern).toMatchObject({ sent: 4, received: 4, final: true, notes: [] });
    expect([eastern.platform.received, eastern.platform.attributed?.count]).toEqual([null, 4]);
    expect(days.find((day) => day.date === utcDay)).toBeUndefined();
    expect(summary.week).toEqual({ sent: 4, received: 4, share: 1 });
    // The page says which days these are.
    expect(summary.timeZone).toBe(EASTERN);
  });
  test("the pixel's other senders are never this conversion's: 2 sent beside 30 of others shows the pixel's count with its scope, no ratio, no loss", async () => {
    platforms.conversions.reset();
    platforms.reporting.set({ meta: { attributionLagHours: 0, missingShare: 0 } });
    try {
      // Another organization's conversion sends 30 Purchase and 5 Lead events to the same pixel the same day.
      const other = await setUpConversion('meta_ads');
      const others = [
        ...purchases(30, () => ({ user: { email: sha256(`other${serial}@example.com`) } })),
        ...purchases(5, () => ({ name: 'Lead', user: { email: sha256(`lead${serial}@example.com`) } })),
      ];
      const otherSent = await deliverBatch(other.orgId, await getConversion(other.orgId, other.conversionId), others);
      expect(otherSent.rows.filter((row) => row.status === 'delivered')).toHaveLength(35);
      // Ours names its event without case, and sent 2.
      const ours = await setUpConversion('meta_ads', { events: ['purchase'] });
      const sent = await deliverBatch(
        ours.orgId,
        await getConversion(ours.orgId, ours.conversionId),
        purchases(2, () => ({ user: { email: sha256(`ours${serial}@example.com`) } })),
      );
      expect(sent.rows.filter((row) => row.status === 'delivered')).toHaveLength(2);
      // A third sends every event and has sent nothing yet.
      const silent = await setUpConversion('meta_ads');

      const accountDay = dayIn(EASTERN);
      const final = new Date(instantOf(addDays(accountDay, 1), '00:00', EASTERN) + 25 * 3_600_000);
      await readAt(ours.orgId, final);
      const reconciliation = await reconciliationOf(ours);
      const day = reconciliation.days.find((item) => item.date === accountDay)!;
      // What we sent and what Meta received of it; the pixel's 32 Purchase events (not the Leads) with whose they are.
      expect(day).toMatchObject({ sent: 2, received: 2, refused: 0, final: true, notes: [] });
      expect(day.platform.received).toEqual({
        count: 32,
        scope: 'purchase server events at the pixel, from all its server senders (this conversion, other conversions, other tools)',
      });
      expect(day.platform.attributed?.scope).toMatch(/across the ad account \(every pixel, browser and server/);
      expect(reconciliation.summary.week).toEqual({ sent: 2, received: 2, share: 1 });

      await readAt(silent.orgId, final);
      const nothing = await reconciliationOf(silent);
      expect(nothing.summary.state).toBe('read');
      expect(nothing.days).toEqual([]);
    } finally {
      platforms.reporting.reset();
    }
  });

  test('two conversions of one organization to one goal: each figure of the goal says it is theirs together', async () => {
    // One takes the purchases, the other the leads: both land in the same goal.
    const first = await setUpConversion('microsoft_ads', { events: ['Purchase'] });
    const second = await createConversionFor(first, 'Leads to the same goal', ['Lead']);
    platforms.reporting.set({ microsoft: { lagHours: 0, dropShare: 0 } });
    const delivered = await deliverBatch(first.orgId, await getConversion(first.orgId, first.conversionId), purchases(3));
    expect(delivered.rows.filter((row) => row.status === 'delivered')).toHaveLength(3);
    await readAfterMicrosoftLag(first.orgId);
    const { days } = await reconciliationOf(first);
    expect(days.find((day) => day.date === sentDay)?.platform.attributed?.scope).toMatch(
      /from every conversion sent to it; 1 other conversion of yours sends to this conversion goal too$/,
    );
    expect(second).toEqual(expect.any(String));
  });

  test('a stored threshold keeps working; a week stored when it meant attribution is read again as a first read', async () => {
    const old = await setUpConversion('microsoft_ads');
    const delivered = await deliverBatch(old.orgId, await getConversion(old.orgId, old.conversionId), purchases(10));
    expect(delivered.rows.filter((row) => row.status === 'delivered')).toHaveLength(10);
    // As stored before: 20 % attributed (which alerted under 80), and the user's 80 % threshold.
    await adminDb()
      .collection('organizations')
      .doc(old.orgId)
      .collection('conversions')
      .doc(old.conversionId)
      .update({
        reconcile: {
          state: 'read',
          message: null,
          read_at: Timestamp.now(),
          time_zone: EASTERN,
          week: { accepted: 10, attributed: 2, share: 0.2 },
        },
        reconcile_threshold: 80,
      });
    const before = await reconciliationOf(old);
    expect(before.summary.state).toBe('not_read');
    expect(before.threshold).toBe(80);

    platforms.reporting.set({ microsoft: { lagHours: 0, dropShare: 0.8 } });
    let calls = 0;
    await readAfterMicrosoftLag(old.orgId, { onCall: () => (calls += 1) });
    const after = await reconciliationOf(old);
    expect(after.threshold).toBe(80);
    // Everything sent was received: no loss, whatever Microsoft recorded in the goal, and no alert.
    expect(after.summary.week).toEqual({ sent: 10, received: 10, share: 1 });
    const incidents = await adminDb().collection('organizations').doc(old.orgId).collection('incidents').get();
    expect(incidents.size).toBe(0);
    platforms.reporting.set({ microsoft: { dropShare: 0 } });
    expect(calls).toBe(5);
  });
});

describe('TikTok', () => {
  /** The sandbox's TikTok advertiser 7100000000000000001 keeps Los Angeles time: its report's days are Pacific days. */
  const PACIFIC = 'America/Los_Angeles';

  test("TikTok's figure is what it attributed on the advertiser's day, for the names this conversion sent; it reports nothing as received, so no loss is told", async () => {
    const tiktok = await setUpConversion('tiktok_ads');
    const conversion = await getConversion(tiktok.orgId, tiktok.conversionId);
    // Three buyers with an ad click (ttclid); two strangers (an email TikTok knows nobody by, no click).
    const sent = purchases(5, (index) =>
      index < 3
        ? { clickIds: { ttclid: `E.C.P.rec${serial}` }, context: { actionSource: 'website' } }
        : { user: { email: sha256(`stranger${serial}@example.com`) } },
    );
    const result = await deliverBatch(tiktok.orgId, conversion, sent);
    expect(result.rows.filter((row) => row.status === 'delivered')).toHaveLength(5);

    // Sent, as far as both sides know, at 02:00 UTC three days ago: 18:00 or 19:00 the day before in Los Angeles.
    const utcDay = addDays(today, -3);
    const pacificDay = addDays(today, -4);
    const entries = platforms.conversions.list('tiktok');
    expect(entries).toHaveLength(5);
    for (const entry of entries) entry.receivedAt = Date.parse(`${utcDay}T02:00:00Z`);
    await moveHoursTo(tiktok.orgId, tiktok.conversionId, `${utcDay}T02`);

    // Noon in Los Angeles two days later: past TikTok's 24 hours of lag, at whatever hour the suite runs.
    let calls = 0;
    await readAt(tiktok.orgId, new Date(instantOf(addDays(pacificDay, 2), '12:00', PACIFIC)), { onCall: () => (calls += 1) });
    const { days, summary } = await reconciliationOf(tiktok);
    const pacific = days.find((day) => day.date === pacificDay)!;
    expect(pacific).toMatchObject({ sent: 5, received: 5, final: true, notes: [] });
    expect(pacific.platform.received).toBeNull();
    // The three with a click, counted under "Purchase" (TikTok's complete_payment), with whose events it covers.
    expect(pacific.platform.attributed).toEqual({
      count: 3,
      scope: 'Purchase events attributed to ads across the advertiser (pixel and Events API together)',
    });
    expect(days.find((day) => day.date === utcDay)).toBeUndefined();
    expect(summary).toMatchObject({ state: 'read', message: null, timeZone: PACIFIC, week: { sent: 5, received: 5, share: 1 } });
    // One advertiser/info and one report for the whole first read (30 days).
    expect(calls).toBe(2);
  });
});
