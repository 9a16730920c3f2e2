import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import snippet from '@/pages/api/orgs/[orgId]/apps/[id]/snippet';
import app from '@/pages/api/orgs/[orgId]/apps/[id]/index';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sha256Hex } from '@/lib/server/sha256';
import { busiestDocument } from '@/lib/server/writeTrace';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { refused, SUBMISSIONS_PER_KEY } from '@/lib/server/limits/submissionLimits';
import { contractAnswers, EXAMPLE_PLAN, EXAMPLE_RETRY_AFTER } from '@/lib/shared/schemas/submissionContract';
import { createApp, rotateSubmissionKey } from '@/lib/server/repos/apps';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { tapConversions } from '@/tests/api/helpers/queue';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// Ingest: keys, validation, hashing before anything is queued, and nothing written per event or request.

// Every Firestore write of this file's process, per document and second (lib/server/writeTrace.ts).
const traceDir = mkdtempSync(path.join(tmpdir(), 'submissions-writes-'));
process.env.FIRESTORE_WRITE_TRACE_DIR = traceDir;
let s: Record<'submissions' | 'snippet' | 'app', TestServer>;
let tap: Awaited<ReturnType<typeof tapConversions>>;
let owner: TestUser;
let orgId: string;
let appId: string;
let key: string;

const WEBSITE = 'https://shop.example';

beforeAll(async () => {
  s = await serveHandlers({ submissions, snippet, app }, { submissions: submissionsConfig });
  tap = await tapConversions();
  owner = await createTestUser();
  orgId = await createTestOrganization([[owner, 'owner']]);
  ({ id: appId } = await createApp(orgId, owner.uid, {
    name: 'Shop',
    websiteUrl: WEBSITE,
    gtmContainerId: 'GTM-SHOP1',
    payloadUrls: ['/thanks'],
  }));
  ({ key } = await rotateSubmissionKey(orgId, appId));
});
afterAll(async () => {
  await closeAll(s);
  await tap.close();
});

const queued = async () => (await tap.read()).filter((message) => message.attributes.source === `app:${appId}`);
const submit = (body: unknown, token = key) => call(s.submissions, { method: 'POST', token, body });

/** Every document under the organization, as text: to look for a clear identifier. */
async function organizationText(): Promise<string> {
  const texts: string[] = [];
  async function walk(ref: FirebaseFirestore.DocumentReference) {
    const snap = await ref.get();
    if (snap.exists) texts.push(JSON.stringify(snap.data()));
    for (const collection of await ref.listCollections()) {
      for (const doc of (await collection.get()).docs) await walk(doc.ref);
    }
  }
  await walk(adminDb().collection('organizations').doc(orgId));
  return texts.join('\n');
}

test('one event → 202 with its id; it is queued hashed, and nothing raw is stored or queued', async () => {
  const response = await submit({
    event: 'Lead',
    email: ' Ada.Lovelace@Example.com ',
    phone: '+44 20 7946 0958',
    firstName: 'Ada',
    gclid: 'Cj0KCQ',
  });
  expect(response.status).toBe(202);
  expect(response.body).toEqual({ success: true, id: expect.stringMatching(/^sb_[0-9a-f]{32}$/) });
  const [message, ...rest] = await queued();
  expect(rest).toHaveLength(0);
  expect(message!.attributes).toEqual({ org: orgId, source: `app:${appId}`, events: '1' });
  expect(message!.event).toMatchObject({
    id: response.body.id,
    name: 'Lead',
    user: { email: sha256Hex('ada.lovelace@example.com'), phone: sha256Hex('442079460958'), firstName: sha256Hex('ada') },
    clickIds: { gclid: 'Cj0KCQ' },
  });
  const everywhere = `${JSON.stringify(message)}\n${await organizationText()}`;
  expect(everywhere).not.toMatch(/lovelace|7946 ?0958|"Ada"/i);
});

test('the same payload sent again is the same event (its id is derived from the content)', async () => {
  const first = await submit({ event: 'Lead', email: 'retry@example.com' });
  const again = await submit({ event: 'Lead', email: 'retry@example.com' });
  expect(again.body.id).toBe(first.body.id);
  await queued();
});

test('a batch is answered per event: the valid ones are queued, the others name their fields', async () => {
  const response = await submit({
    events: [
      { event: 'Lead', eventId: 'b-1' },
      { event: 'Lead', email: 'nope' },
      { event: 'Purchase', eventId: 'b-3', value: 20, currency: 'EUR' },
    ],
  });
  expect(response.status).toBe(202);
  expect(response.body).toEqual({
    success: true,
    accepted: 2,
    results: [
      { index: 0, id: 'b-1' },
      { index: 1, error: { code: 'invalid', fieldErrors: { email: ['Not an email address (or its SHA-256 hash)'] } } },
      { index: 2, id: 'b-3' },
    ],
  });
  const batch = await queued();
  expect(batch.map((message) => message.event.id).sort()).toEqual(['b-1', 'b-3']);
  // The request's valid events travel together: one message that says it holds two.
  expect(batch.map((message) => message.attributes.events)).toEqual(['2', '2']);
});

test('bad input → 400 naming the field, and nothing is queued', async () => {
  const single = await submit({ event: 'Lead', value: 10 });
  expect(single.status).toBe(400);
  expect(single.body.fieldErrors).toEqual({ currency: ['Give the currency of the value'] });
  const wrongType = await submit({ event: 'Lead', consent: { adUserData: 'yes' } });
  expect(wrongType.status).toBe(400);
  expect(wrongType.body.fieldErrors).toEqual({ 'consent.adUserData': ["'granted' or 'denied'"] });
  const tooMany = await submit({ events: Array.from({ length: 501 }, (_, index) => ({ event: 'Lead', eventId: `x-${index}` })) });
  expect(tooMany.status).toBe(400);
  expect(tooMany.body.fieldErrors).toEqual({ events: ['At most 500 events per request'] });
  const allBad = await submit({ events: [{ event: '' }] });
  expect(allBad.status).toBe(400);
  expect(Object.keys(allBad.body.fieldErrors as object)).toEqual(['events.0.event']);
  expect(await queued()).toHaveLength(0);
});

test('an unknown field costs nothing: the event is queued without it, and the answer names it', async () => {
  const response = await submit({ event: 'Lead', eventId: 'unknown-1', password: 'hunter2' });
  expect(response.status).toBe(202);
  expect(response.body).toEqual({
    success: true,
    id: 'unknown-1',
    warnings: [{ field: 'password', message: 'Unknown field: ignored, not stored' }],
  });
  const [message, ...rest] = await queued();
  expect(rest).toHaveLength(0);
  expect(JSON.stringify(message)).not.toMatch(/password|hunter2/);
});

test('a body over 1 MB → 413; an unknown or revoked key → 401', async () => {
  const huge = await submit({ event: 'Lead', pageUrl: 'x'.repeat(1_100_000) });
  expect(huge.status).toBe(413);
  expect((await submit({ event: 'Lead' }, 'sbk_unknown')).status).toBe(401);
  expect((await submit({ event: 'Lead' }, 'not-a-key')).status).toBe(401);
  expect(await queued()).toHaveLength(0);
});

test('a burst of single events writes no document per request: at most one write a second, the key’s shared count', async () => {
  await queued();
  const from = Date.now();
  for (let round = 0; round < 3; round++) {
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => submit({ event: 'Lead', eventId: `burst-${round}-${i}` })));
    expect(statuses.map((response) => response.status)).toEqual(Array(20).fill(202));
  }
  // A second later the next request writes the key's count (at most once a second per key and instance).
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect((await submit({ event: 'Lead', eventId: 'burst-last' })).status).toBe(202);
  expect(await queued()).toHaveLength(61);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the tracer writes each finished second
  const busiest = busiestDocument(traceDir, from);
  expect(busiest).not.toBeNull(); // the shared count was written: the tracer sees writes
  expect(busiest!.path).toMatch(/^rate_limits\/submissions_per_key_[0-9a-f]{64}_\d+\/rate_limit_instances\/[\w-]+$/);
  expect(busiest!.writes).toBe(1);
});

test('the API reference’s 429 example is what the server sends a Growth key over its rate', () => {
  const example = contractAnswers().find((answer) => answer.title.startsWith('429'))!;
  const sent = refused(SUBMISSIONS_PER_KEY, EXAMPLE_PLAN.ingestEventsPerSecond, EXAMPLE_RETRY_AFTER);
  expect(EXAMPLE_PLAN.name).toBe('Growth');
  expect(JSON.parse(example.answer.slice(example.answer.indexOf('{')))).toEqual({
    success: false,
    code: sent.code,
    message: sent.message,
  });
  expect(sent.message).toBe('Too many submissions with this key: at most 1,000 events a second. Try again in 12 seconds.');
  expect(example.answer).toContain(`Retry-After: ${sent.retryAfter}\n`);
});

describe('the website snippet and its publishable key', () => {
  let publishable: string;

  beforeAll(async () => {
    const response = await call(s.snippet, { token: owner.token, query: { orgId, id: appId } });
    expect(response.status).toBe(200);
    publishable = response.body.publishableKey as string;
    expect(publishable).toMatch(/^sbp_/);
    expect(response.body.snippet).toContain(`?key=${publishable}`);
    expect(response.body.snippet).toContain('"paths":["/thanks"]');
  });

  const fromBrowser = (origin: string | null) =>
    fetch(`${s.submissions.url}/?key=${publishable}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'User-Agent': 'Mozilla/5.0 (test)', ...(origin ? { Origin: origin } : {}) },
      body: JSON.stringify({ event: 'Form Submitted', email: 'web@example.com', fbclid: 'IwAR9', pageUrl: `${WEBSITE}/thanks` }),
    });

  test("works from the app's website, as text/plain, with the browser's address and agent", async () => {
    const response = await fromBrowser(WEBSITE);
    expect(response.status).toBe(202);
    expect(response.headers.get('access-control-allow-origin')).toBe(WEBSITE);
    const [message] = await queued();
    expect(message!.event.context).toMatchObject({
      userAgent: 'Mozilla/5.0 (test)',
      actionSource: 'website',
      pageUrl: `${WEBSITE}/thanks`,
    });
    expect(message!.event.context.ip).toBeTruthy();
    expect(message!.event.clickIds.fbc).toMatch(/^fb\.1\.\d+\.IwAR9$/);
  });

  test("a browser's overlong agent is cut to what the queue keeps, and an address that is no IP is left out: the event still goes", async () => {
    const response = await fetch(`${s.submissions.url}/?key=${publishable}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'text/plain',
        'User-Agent': `Mozilla/5.0 ${'x'.repeat(1500)}`,
        'X-Forwarded-For': 'y'.repeat(100),
        Origin: WEBSITE,
      },
      body: JSON.stringify({ event: 'Form Submitted', email: 'long@example.com' }),
    });
    expect(response.status).toBe(202);
    const [message] = await queued();
    expect(message!.event.context.userAgent).toBe(`Mozilla/5.0 ${'x'.repeat(1500)}`.slice(0, 1000));
    expect(message!.event.context.ip).toBeUndefined();
  });

  test('is refused from another origin or without one', async () => {
    expect((await fromBrowser('https://evil.example')).status).toBe(403);
    expect((await fromBrowser('https://www.evil.example')).status).toBe(403);
    expect((await fromBrowser('https://wwwshop.example')).status).toBe(403);
    expect((await fromBrowser('http://shop.example')).status).toBe(403);
    expect((await fromBrowser('https://shop.example:8443')).status).toBe(403);
    expect((await fromBrowser(null)).status).toBe(403);
    expect(await queued()).toHaveLength(0);
  });

  test("works from the website's www. host too (one site, whichever host the app was given with)", async () => {
    const response = await fromBrowser('https://www.shop.example');
    expect(response.status).toBe(202);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://www.shop.example');
    expect(await queued()).toHaveLength(1);
  });

  test('a payload URL that would end the script is refused (400 naming it), and one stored before cannot break out', async () => {
    const evil = '/thanks</script><script>alert(document.cookie)</script>';
    const saved = await call(s.app, {
      method: 'PATCH',
      token: owner.token,
      query: { orgId, id: appId },
      body: { payloadUrls: ['/ok', evil] },
    });
    expect(saved.status).toBe(400);
    expect((saved.body.fieldErrors as Record<string, string[]>)['payloadUrls.1']).toEqual([
      'A thank-you page path has no spaces, quotes or < >',
    ]);
    const stored = (await call(s.app, { token: owner.token, query: { orgId, id: appId } })).body.app as { payloadUrls: string[] };
    expect(stored.payloadUrls).toEqual(['/thanks']);

    // An app saved before the rule (or written some other way): the tag we hand out still holds one script.
    const older = await createApp(orgId, owner.uid, { name: 'Old', websiteUrl: WEBSITE, gtmContainerId: 'GTM-OLD1', payloadUrls: [evil] });
    const tag = (await call(s.snippet, { token: owner.token, query: { orgId, id: older.id } })).body.snippet as string;
    expect(tag.match(/<\/?script/gi)).toEqual(['<script', '</script']);
    expect(tag).toContain('"paths":["/thanks\\u003c/script\\u003e\\u003cscript\\u003ealert(document.cookie)\\u003c/script\\u003e"]');
  });

  test("another organization's member cannot get the snippet", async () => {
    const stranger = await createTestUser();
    await createTestOrganization([[stranger, 'owner']]);
    expect((await call(s.snippet, { token: stranger.token, query: { orgId, id: appId } })).status).toBe(404);
  });
});
