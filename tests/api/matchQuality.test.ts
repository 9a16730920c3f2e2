import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import quality from '@/pages/api/orgs/[orgId]/conversions/[id]/quality';
import { countMatchKeys, type ConversionQuality, type MatchCounts } from '@/lib/shared/conversions/quality';
import { deliverBatch } from '@/lib/server/delivery/deliver';
import { mapEvent } from '@/lib/server/delivery/mapping';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { getConversion } from '@/lib/server/repos/conversions';
import { rotateSubmissionKey } from '@/lib/server/repos/apps';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { createTestMember, type TestUser } from '@/tests/fixtures/firebase';
import { leadEvents, SANDBOX_TARGETS, setUpConversion, type ConversionSetup } from '@/tests/api/helpers/conversions';
import { tapConversions } from '@/tests/api/helpers/queue';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { until } from '@/tests/api/helpers/until';
import { deliveryHours } from '@/lib/server/repos/hourTallies';
import { sha256Hex } from '@/lib/server/sha256';

// Match quality counted by the worker from real events (posted to /api/submissions, queued, delivered
// to the sandbox's platforms), read back through GET …/conversions/{id}/quality.
jest.setTimeout(120_000);

let platforms: FakePlatforms;
let s: Record<'submissions' | 'quality', TestServer>;
let tap: Awaited<ReturnType<typeof tapConversions>>;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ submissions, quality }, { submissions: submissionsConfig });
  tap = await tapConversions();
});
afterAll(async () => {
  await closeAll(s);
  await tap.close();
  await platforms.close();
});

const worker = workerProcesses({ DELIVERY_LINGER_MS: '300', DELIVERY_RETRY_BASE_MS: '100' });

/** Ten leads from a server: every one with an email, IP and browser; 4 with a phone; 5 with a Meta click id. */
function leads(prefix: string) {
  return Array.from({ length: 10 }, (_, index) => ({
    event: 'Lead',
    eventId: `${prefix}-${index}`,
    email: `person${index}@example.com`,
    ...(index < 4 ? { phone: `+1 650 555 01${String(index).padStart(2, '0')}` } : {}),
    ...(index < 5 ? { fbclid: `IwAR${index}`, gclid: `Cj0${index}` } : {}),
    ip: '203.0.113.5',
    userAgent: 'Mozilla/5.0 (test)',
    actionSource: 'website',
  }));
}

/**
 * Posts the leads, lets a worker deliver them, and answers what matchKeysOf makes of them as queued
 * (mapped by the conversion): what the worker should have counted.
 */
async function deliverLeads(setup: ConversionSetup, prefix: string): Promise<MatchCounts> {
  const { key } = await rotateSubmissionKey(setup.orgId, setup.appId);
  const posted = await call(s.submissions, { method: 'POST', token: key, body: { events: leads(prefix) } });
  expect(posted.status).toBe(202);
  const queued = (await tap.read()).filter((message) => message.attributes.source === `app:${setup.appId}`).map((message) => message.event);
  expect(queued).toHaveLength(10);
  worker();
  await until(
    async () => {
      const hours = await deliveryHours(setup.orgId, setup.conversionId, new Date(Date.now() - 3600_000));
      return hours.reduce((total, hour) => total + hour.delivered + hour.failed, 0) >= 10;
    },
    60_000,
    'the ten leads to be delivered',
  );
  const conversion = await getConversion(setup.orgId, setup.conversionId);
  return countMatchKeys(
    queued.map((event) => mapEvent(conversion.mapping, event)),
    conversion.destination.platform,
  );
}

const readQuality = (setup: ConversionSetup, who: TestUser = setup.owner, id = setup.conversionId) =>
  call(s.quality, { token: who.token, query: { orgId: setup.orgId, id } });

describe('a Meta conversion', () => {
  let setup: ConversionSetup;
  let body: ConversionQuality;
  let expected: MatchCounts;

  beforeAll(async () => {
    setup = await setUpConversion('meta_ads');
    expected = await deliverLeads(setup, `meta${Date.now()}`);
    const response = await readQuality(setup);
    expect(response.status).toBe(200);
    body = response.body as unknown as ConversionQuality;
  });

  test('counts every settled event over the last day and the last week, in the hour documents the worker already writes', async () => {
    expect(body.platform).toBe('meta_ads');
    expect(body.keys).toEqual(['email', 'phone', 'address', 'clickId', 'ipUserAgent']);
    expect(body.day).toEqual(expected);
    expect(body.week).toEqual(expected);
    expect(body.day.events).toBe(10);
    // No document more: the conversion keeps its delivery records and its hours, nothing else.
    const ref = adminDb().collection('organizations').doc(setup.orgId).collection('conversions').doc(setup.conversionId);
    expect((await ref.listCollections()).map((collection) => collection.id).sort()).toEqual(['deliveries', 'hours']);
    const hours = await ref.collection('hours').get();
    expect(hours.size).toBe(1);
    expect(hours.docs[0]!.get('match.events')).toBe(10);
  });

  test('the share of each key, as Meta takes it, and what would raise it', () => {
    expect(body.day.keys).toMatchObject({ email: 10, phone: 4, clickId: 5, ipUserAgent: 10, address: 0 });
    expect(body.advice.map((advice) => advice.text)).toEqual([
      "100 % of events have no full name and address; add the form's first name, last name, postal code and country fields (or set the app's default country).",
      "60 % of events have no phone; add the form's phone field (or name it in the app's custom fields).",
      '50 % of events have no click id; keep the snippet on every landing page, so the gclid, fbclid, msclkid, li_fat_id or ttclid of the ad click is remembered.',
    ]);
  });

  test("Meta's own measure is beside ours, of this conversion's event names only, its diagnostics in words", async () => {
    // Another sender of the pixel: 3 Purchase events whose emails match no one at Meta.
    const other = await setUpConversion('meta_ads');
    const strangers = leadEvents(3, `other${Date.now()}`, (index) => ({
      name: 'Purchase',
      user: { email: sha256Hex(`stranger${index}@nowhere.example`) },
    }));
    await deliverBatch(other.orgId, await getConversion(other.orgId, other.conversionId), strangers);
    expect(
      platforms.matches
        .list({ platform: 'meta', target: SANDBOX_TARGETS.meta_ads.targetId })
        .map((entry) => entry.eventName)
        .sort(),
    ).toEqual(['Lead', 'Purchase']);
    // Read afresh (the figure is kept for hours): the pixel's scores hold both names; the answer, ours only.
    await adminDb()
      .collection('organizations')
      .doc(setup.orgId)
      .collection('conversions')
      .doc(setup.conversionId)
      .update({ platform_quality: null });
    const fresh = (await readQuality(setup)).body as unknown as ConversionQuality;
    expect(fresh.platformMeasure).toMatchObject({ status: 'reported', kind: 'event_scores' });
    const measure = fresh.platformMeasure as Extract<ConversionQuality['platformMeasure'], { kind: 'event_scores' }>;
    expect(measure.events.map((event) => event.eventName)).toEqual(['Lead']);
    expect(measure.events[0]!.keys.map((key) => key.label)).toContain('Email');
    for (const diagnostic of measure.events[0]!.diagnostics)
      expect(diagnostic.text).toMatch(/^\d+(\.\d+)? % of the Lead events Meta received /);

    // The other sender's own page shows its Purchase score, not our Leads.
    const theirs = (await readQuality(other)).body as unknown as ConversionQuality;
    const theirMeasure = theirs.platformMeasure as Extract<ConversionQuality['platformMeasure'], { kind: 'event_scores' }>;
    expect(theirMeasure.events.map((event) => event.eventName)).toEqual(['Purchase']);
    expect(theirMeasure.events[0]!.diagnostics[0]!.text).toMatch(
      /^100 % of the Purchase events Meta received had an email it could not use\./,
    );
  });

  test('members may read it; another organization or a missing conversion → 404', async () => {
    const member = await createTestMember(setup.orgId);
    expect((await readQuality(setup, member)).status).toBe(200);

    const other = await setUpConversion('meta_ads');
    // An outsider with a conversion of their own, asking for ours under our organization, then under theirs.
    expect((await readQuality(setup, other.owner)).status).toBe(404);
    expect((await call(s.quality, { token: other.owner.token, query: { orgId: other.orgId, id: setup.conversionId } })).status).toBe(404);
    expect((await readQuality(setup, setup.owner, 'missing')).status).toBe(404);
  });
});

test("Meta's figure is read once per cooldown, whoever opens the page and however often: concurrent views share one read", async () => {
  const setup = await setUpConversion('meta_ads');
  const member = await createTestMember(setup.orgId);
  const pixel = SANDBOX_TARGETS.meta_ads.targetId;
  const before = platforms.matches.reads('meta', pixel);

  const answers = await Promise.all(Array.from({ length: 24 }, (_, index) => readQuality(setup, index % 2 ? member : setup.owner)));
  expect(answers.map((answer) => answer.status)).toEqual(Array(24).fill(200));
  expect(platforms.matches.reads('meta', pixel) - before).toBe(1);
  // The answer says when the figure was read: one read, so one time for all 24.
  const readAt = new Set(answers.map((answer) => (answer.body as unknown as ConversionQuality).platformMeasureReadAt));
  expect(readAt.size).toBe(1);
  const [at] = [...readAt];
  expect(Date.now() - Date.parse(at!)).toBeLessThan(60_000);

  // Within the cooldown a member's page view asks Meta nothing, and says the same read time.
  const again = await readQuality(setup, member);
  expect((again.body as unknown as ConversionQuality).platformMeasureReadAt).toBe(at);
  expect(platforms.matches.reads('meta', pixel) - before).toBe(1);
  // It has sent nothing: the pixel's scores (other senders' Leads and Purchases) are none of its own.
  expect((again.body as unknown as ConversionQuality).platformMeasure).toEqual({
    status: 'not_reported',
    message:
      "Meta Ads scores each event name for all the senders of the target together: the score of this conversion's events shows once it has sent some in the last 7 days.",
  });
});

test('a Google Ads conversion keeps the id of the request Data Manager took, and shows its diagnostics or "not reported yet"', async () => {
  const setup = await setUpConversion('google_ads');
  const expected = await deliverLeads(setup, `google${Date.now()}`);
  const conversion = await adminDb().collection('organizations').doc(setup.orgId).collection('conversions').doc(setup.conversionId).get();
  expect(conversion.get('last_request.id')).toMatch(/\S/);
  const response = await readQuality(setup);
  expect(response.status).toBe(200);
  const body = response.body as unknown as ConversionQuality;
  expect(body.keys).toEqual(['email', 'phone', 'address', 'clickId', 'ipUserAgent', 'consent']);
  expect(body.day).toEqual(expected);
  expect(body.day.events).toBe(10);
  if (body.platformMeasure.status === 'reported' && body.platformMeasure.kind === 'request_diagnostics') {
    expect(body.platformMeasure.requestId).toBe(conversion.get('last_request.id'));
  } else {
    expect(['not_reported', 'unavailable']).toContain(body.platformMeasure.status);
  }
});
