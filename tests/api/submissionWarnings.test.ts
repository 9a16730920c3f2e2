import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import { ensurePublishableKey, rotateSubmissionKey } from '@/lib/server/repos/apps';
import { createConversion, updateConversion } from '@/lib/server/services/conversions';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import {
  connectDestination,
  ownerWithShopApp,
  SANDBOX_TARGETS,
  setUpConversion,
  type ConversionSetup,
} from '@/tests/api/helpers/conversions';
import { tapConversions } from '@/tests/api/helpers/queue';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// Issue 37 §4: nothing accepted silently unsendable. An event the source's conversions will not send (no
// identifier, a website event without the browser's user agent, ad user data denied) is still accepted with
// 202, and the answer says which conversion, which platform and why, in the delivery log's words.
jest.setTimeout(120_000);

let platforms: FakePlatforms;
let s: Record<'submissions', TestServer>;
let tap: Awaited<ReturnType<typeof tapConversions>>;
let meta: ConversionSetup;
let key: string;
let microsoftId: string;

const WEBSITE = 'https://shop.example';
const META_NO_USER_AGENT = "Website event without the browser's user agent: Meta requires it for website events";
const META_NO_IDENTIFIER = 'No identifier Meta can match (email, phone, external id, fbc/fbp, or IP with user agent)';
const MICROSOFT_NO_CLICK = 'No Microsoft click id (msclkid): Microsoft matches offline conversions by click';

/** A website event as a complete one looks: the page, the browser's agent and address, an email and Microsoft's click. */
const COMPLETE = {
  event: 'Lead',
  email: 'ada@example.com',
  msclkid: 'a'.repeat(32),
  pageUrl: `${WEBSITE}/thanks`,
  userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari/605.1.15',
  ip: '203.0.113.7',
};

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ submissions }, { submissions: submissionsConfig });
  tap = await tapConversions();
  meta = await setUpConversion('meta_ads');
  ({ key } = await rotateSubmissionKey(meta.orgId, meta.appId));
});
afterAll(async () => {
  await closeAll(s);
  await tap.close();
  await platforms.close();
});

const submit = (body: unknown, token = key) => call(s.submissions, { method: 'POST', token, body });
const notSent = (conversion: { id: string; name: string }, platform: string, label: string, reason: string) => ({
  conversion,
  platform,
  reason,
  message: `Accepted, but not sent to ${label}: ${reason}`,
});
const metaLeads = () => ({ id: meta.conversionId, name: 'Leads' });

test('a complete website event is answered without warnings', async () => {
  const answer = await submit({ ...COMPLETE, eventId: 'w-complete' });
  expect(answer.status).toBe(202);
  expect(answer.body).toEqual({ success: true, id: 'w-complete' });
});

test('a website event without the user agent: accepted and queued, and the 202 names the conversion, Meta and why', async () => {
  const answer = await submit({
    event: 'Lead',
    eventId: 'w-no-agent',
    email: 'ada@example.com',
    pageUrl: `${WEBSITE}/thanks`,
    coupon: 'X',
  });
  expect(answer.status).toBe(202);
  expect(answer.body).toEqual({
    success: true,
    id: 'w-no-agent',
    warnings: [
      { field: 'coupon', message: 'Unknown field: ignored, not stored' },
      notSent(metaLeads(), 'meta_ads', 'Meta Ads', META_NO_USER_AGENT),
    ],
  });
  const queued = (await tap.read()).map((message) => message.event.id);
  expect(queued).toContain('w-no-agent');
});

test('events with no identifier: each is warned at its index, by every conversion it goes to (one made a moment ago too)', async () => {
  const bare = Array.from({ length: 25 }, (_, index) => ({ event: 'Lead', eventId: `w-bare-${index}` }));
  const before = await submit({ events: bare });
  expect(before.status).toBe(202);
  expect(before.body.accepted).toBe(25);
  expect(before.body.results).toEqual(
    bare.map((event, index) => ({
      index,
      id: event.eventId,
      warnings: [notSent(metaLeads(), 'meta_ads', 'Meta Ads', META_NO_IDENTIFIER)],
    })),
  );

  // A Microsoft conversion of the same app, made now: the next answer names it too (this instance reads the routing again).
  const destinationId = await connectDestination(meta.orgId, meta.owner.uid, 'microsoft_ads');
  const microsoft = await createConversion(meta.orgId, 'growth', meta.owner.uid, {
    name: 'Offline leads',
    source: { type: 'app', appId: meta.appId },
    destination: { destinationId, ...SANDBOX_TARGETS.microsoft_ads },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'clickIds'] },
  });
  microsoftId = microsoft.id;
  const after = await submit({ events: bare.slice(0, 2) });
  expect(after.body.results).toEqual(
    bare.slice(0, 2).map((event, index) => ({
      index,
      id: event.eventId,
      warnings: [
        notSent(metaLeads(), 'meta_ads', 'Meta Ads', META_NO_IDENTIFIER),
        notSent({ id: microsoftId, name: 'Offline leads' }, 'microsoft_ads', 'Microsoft Advertising', MICROSOFT_NO_CLICK),
      ],
    })),
  );
});

test('ad user data denied: warned by the platforms that cannot carry consent; a conversion that does not take the event, or is paused, says nothing', async () => {
  const denied = { ...COMPLETE, eventId: 'w-denied', consent: { adUserData: 'denied' } };
  const answer = await submit({ events: [{ ...COMPLETE, eventId: 'w-fine' }, denied] });
  expect(answer.body.results).toEqual([
    { index: 0, id: 'w-fine' },
    {
      index: 1,
      id: 'w-denied',
      warnings: [
        notSent(
          metaLeads(),
          'meta_ads',
          'Meta Ads',
          'Consent: the person denied ad user data, and Meta cannot carry consent, so it was not sent',
        ),
        notSent(
          { id: microsoftId, name: 'Offline leads' },
          'microsoft_ads',
          'Microsoft Advertising',
          'Consent: the person denied ad user data, and Microsoft cannot carry consent, so it was not sent',
        ),
      ],
    },
  ]);

  // Microsoft's conversion taking purchases only does not take this lead: it has nothing to warn of; nor once it is paused.
  const onlyMeta = [expect.objectContaining({ conversion: metaLeads(), platform: 'meta_ads' })];
  const mapping = { events: ['Purchase'], value: { mode: 'event' as const }, identifiers: ['email' as const, 'clickIds' as const] };
  await updateConversion(meta.orgId, 'growth', microsoftId, { mapping });
  expect((await submit({ ...denied, eventId: 'w-denied-2' })).body.warnings).toEqual(onlyMeta);
  await updateConversion(meta.orgId, 'growth', microsoftId, { status: 'paused' });
  expect((await submit({ ...denied, event: 'Purchase', eventId: 'w-denied-3' })).body.warnings).toEqual(onlyMeta);
});

test("another organization's key learns nothing of these conversions; an unknown or misplaced key gets no answer about them", async () => {
  const other = await ownerWithShopApp();
  const { key: otherKey } = await rotateSubmissionKey(other.orgId, other.app.id);
  const theirs = await submit({ event: 'Lead', eventId: 'w-other' }, otherKey);
  expect(theirs.status).toBe(202);
  expect(theirs.body).toEqual({ success: true, id: 'w-other' });

  const unknown = await submit({ event: 'Lead' }, 'sbk_unknown');
  expect(unknown.status).toBe(401);
  expect(unknown.body).not.toHaveProperty('warnings');
  // The website key works only from the app's own site: from another, 403 and nothing about the conversions.
  const publishable = await ensurePublishableKey(meta.orgId, meta.appId);
  const elsewhere = await fetch(`${s.submissions.url}/?key=${publishable}`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain', Origin: 'https://evil.example' },
    body: JSON.stringify({ event: 'Lead', pageUrl: 'https://evil.example/' }),
  });
  expect(elsewhere.status).toBe(403);
  expect(JSON.stringify(await elsewhere.json())).not.toMatch(/warnings|Leads|meta_ads/);
});
