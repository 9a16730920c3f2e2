import sendInvitation from '@/pages/api/sendInvitation';
import resendInvitation from '@/pages/api/orgs/[orgId]/invitations/[invitationId]/resend';
import submissions from '@/pages/api/submissions';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { createApp, ensurePublishableKey, rotateSubmissionKey } from '@/lib/server/repos/apps';
import { sharedCountsPath } from '@/lib/server/limits/submissionLimits';
import type { FakeCustomerIo } from '@/sandbox/customerio';
import { createTestOrganization, createTestUser, uniqueEmail, type TestUser } from '@/tests/fixtures/firebase';
import { serveWithCustomerIo, stopServed } from '@/tests/api/helpers/customerIo';
import { call, type TestServer } from '@/tests/api/helpers/server';
import { tapConversions } from '@/tests/api/helpers/queue';
import { windowWithTimeLeft } from '@/tests/api/helpers/until';

jest.setTimeout(60_000);

// Small limits, so that N + 1 requests are few; the production numbers live in lib/server/limits/rateLimit.ts,
// lib/server/limits/submissionLimits.ts and the plans table.
const SUBMISSIONS = 3;
const PER_ADDRESS = 2;
const PER_USER = 3;
const PER_ORGANIZATION = 4;

const handlers = { sendInvitation, resendInvitation, submissions };
let servers: Record<keyof typeof handlers, TestServer>;
let fake: FakeCustomerIo;

beforeAll(async () => {
  ({ servers, fake } = await serveWithCustomerIo(handlers, {
    APP_URL: 'http://app.test',
    RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND: String(SUBMISSIONS),
    RATE_LIMIT_SUBMISSIONS_PER_ADDRESS_PER_SECOND: String(PER_ADDRESS),
    RATE_LIMIT_INVITATIONS_PER_USER_PER_HOUR: String(PER_USER),
    RATE_LIMIT_INVITATIONS_PER_ORGANIZATION_PER_DAY: String(PER_ORGANIZATION),
  }));
});
afterAll(() => stopServed({ servers, fake }));

const freshEmail = () => uniqueEmail('limited');
const invite = (user: TestUser, orgId: string, email = freshEmail()) =>
  call(servers.sendInvitation, {
    method: 'POST',
    token: user.token,
    body: { email, organization_id: orgId, inviter_user_id: user.uid, inviter_email: user.email },
  });
const invitationsOf = async (orgId: string) => (await adminDb().collection('invitations').where('organization_id', '==', orgId).get()).size;
const emailsSent = () => fake.messages.length;

function expectRateLimited(response: Awaited<ReturnType<typeof call>>, maxSeconds: number, message: RegExp) {
  expect(response.status).toBe(429);
  expect(response.body).toMatchObject({ success: false, code: 'rate_limited' });
  expect(response.body.message).toMatch(message);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
}

describe("submissions: events a second per key (the plan's), a shared budget, and per address for the website key", () => {
  let orgId: string;
  let appId: string;

  beforeAll(async () => {
    const owner = await createTestUser();
    orgId = await createTestOrganization([[owner, 'owner']]);
    ({ id: appId } = await createApp(orgId, owner.uid, {
      name: 'Site',
      websiteUrl: 'https://site.example',
      gtmContainerId: 'GTM-ABC123',
      payloadUrls: [],
    }));
  });

  const lead = () => ({ event: 'Lead', eventId: `lead-${Math.random()}` });
  const submit = (key: string, events = 1) =>
    call(servers.submissions, {
      method: 'POST',
      token: key,
      body: events === 1 ? lead() : { events: Array.from({ length: events }, lead) },
    });
  let tap: Awaited<ReturnType<typeof tapConversions>>;
  beforeAll(async () => {
    tap = await tapConversions();
  });
  afterAll(() => tap.close());
  /** How many of this app's events were queued since the last look. */
  const queued = async () => (await tap.read()).filter((message) => message.attributes.source === `app:${appId}`).length;

  /**
   * The limits refill with time: the clock the server reads stands still while `run` sends, so what
   * passes depends on the limits alone, not on how fast this machine is today. Queue reads come after.
   */
  async function atOneInstant<T>(run: () => Promise<T>): Promise<T> {
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
    try {
      return await run();
    } finally {
      now.mockRestore();
    }
  }

  test(`a second's ${SUBMISSIONS} events pass; more in the same second → 429 with Retry-After, not queued`, async () => {
    const { key } = await rotateSubmissionKey(orgId, appId);
    await queued();
    const [first, over, single] = await atOneInstant(async () => [
      await submit(key, SUBMISSIONS),
      await submit(key, SUBMISSIONS),
      await submit(key),
    ]);
    expect(first!.status).toBe(202);
    expectRateLimited(over!, 1, /^Too many submissions with this key: at most 3 events a second\. Try again in 1 second\.$/);
    expectRateLimited(single!, 1, /at most 3 events a second/);
    expect(await queued()).toBe(SUBMISSIONS);
  });

  test('a flood of concurrent submissions queues at most the limit, and nothing fails with 500', async () => {
    const { key } = await rotateSubmissionKey(orgId, appId);
    await queued();
    const statuses = await atOneInstant(async () =>
      (await Promise.all(Array.from({ length: 30 }, () => submit(key)))).map((response) => response.status),
    );
    expect(statuses.filter((status) => status !== 202 && status !== 429)).toEqual([]);
    expect(statuses.filter((status) => status === 202)).toHaveLength(SUBMISSIONS);
    expect(await queued()).toBe(SUBMISSIONS);
  });

  /** A secret key of an app of a new organization on `plan`. */
  const keyOn = async (plan: string) => {
    const owner = await createTestUser();
    const org = await createTestOrganization([[owner, 'owner']], {
      subscription: { status: 'active', plan, current_period_end: '2099-01-01T00:00:00.000Z', past_due_since: null },
    });
    const made = await createApp(org, owner.uid, {
      name: 'Shop',
      websiteUrl: 'https://shop.example',
      gtmContainerId: 'GTM-XYZ987',
      payloadUrls: [],
    });
    return (await rotateSubmissionKey(org, made.id)).key;
  };

  /** Runs `run` with the plans' own rates (this file's override of them lifted). */
  async function withPlanRates(run: () => Promise<void>) {
    const override = process.env.RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND;
    delete process.env.RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND;
    try {
      await run();
    } finally {
      process.env.RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND = override;
    }
  }

  test('the limit follows the plan: Growth 1,000 events a second, Scale more', async () => {
    await withPlanRates(async () => {
      const [growth, scale] = await Promise.all([keyOn('growth'), keyOn('scale')]);
      const statuses = await atOneInstant(async () => {
        const sent = [];
        for (const key of [growth, scale]) for (let i = 0; i < 3; i++) sent.push((await submit(key, 500)).status);
        return sent;
      });
      expect(statuses).toEqual([202, 202, 429, 202, 202, 202]);
    });
  });

  test("a refused body of 5,000 items spends at most one request's 500 of the key's second", async () => {
    await withPlanRates(async () => {
      const key = await keyOn('growth');
      const statuses = await atOneInstant(async () => {
        const flood = await call(servers.submissions, { method: 'POST', token: key, body: { events: Array(5000).fill(0) } });
        return [flood.status, (await submit(key, 500)).status];
      });
      // Counted as 5,000 the flood would leave Growth's 1,000 in debt, and a whole minute of 429s on every instance.
      expect(statuses).toEqual([400, 202]);
    });
  });

  test('what other instances admitted counts: once the shared budget of the minute is used up, 429 until the window ends', async () => {
    const { key } = await rotateSubmissionKey(orgId, appId);
    await windowWithTimeLeft(60);
    // Another instance of the app admitted the whole minute's budget for this key.
    await adminDb()
      .collection(sharedCountsPath(key, Date.now()))
      .doc('another-instance')
      .set({ count: SUBMISSIONS * 60 });
    await queued();
    // This instance reads the others' counts at its first event of the key, then at most once a second.
    expect((await submit(key)).status).toBe(202);
    const deadline = Date.now() + 10_000;
    let response = await submit(key);
    while (response.status === 202 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      response = await submit(key);
    }
    expectRateLimited(response, 60, /Too many submissions with this key/);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(2);
    // This instance wrote its own count beside the other's, not over it.
    const counts = await adminDb().collection(sharedCountsPath(key, Date.now())).get();
    expect(counts.size).toBe(2);
    expect(counts.docs.find((doc) => doc.id === 'another-instance')!.get('count')).toBe(SUBMISSIONS * 60);
  });

  test('the website key is also limited per visitor address; another address still gets through', async () => {
    const publishable = await ensurePublishableKey(orgId, appId);
    await queued();
    const fromAddress = (address: string, events = 1) =>
      call(servers.submissions, {
        method: 'POST',
        query: { key: publishable },
        headers: { Origin: 'https://site.example', 'X-Forwarded-For': address },
        body: events === 1 ? lead() : { events: Array.from({ length: events }, lead) },
      });
    const [first, again, other] = await atOneInstant(async () => [
      await fromAddress('198.51.100.7', PER_ADDRESS),
      await fromAddress('198.51.100.7'),
      await fromAddress('198.51.100.8'),
    ]);
    expect(first!.status).toBe(202);
    expectRateLimited(again!, 1, /^Too many submissions from this address: at most 2 events a second\. Try again in 1 second\.$/);
    expect(other!.status).toBe(202);
    expect(await queued()).toBe(PER_ADDRESS + 1);
  });

  test('an unknown key is refused without counting anything', async () => {
    const response = await submit('sbk_not-a-key');
    expect(response.status).toBe(401);
  });
});

describe('invitation emails: a limit per user and per organization', () => {
  beforeEach(() => windowWithTimeLeft(60 * 60, 60));

  test(`${PER_USER} + 1 invitations by one person → the last is 429 with Retry-After; nothing written or sent`, async () => {
    const owner = await createTestUser();
    const orgId = await createTestOrganization([[owner, 'owner']]);
    for (let i = 0; i < PER_USER; i += 1) expect((await invite(owner, orgId)).status).toBe(200);
    const [written, sent] = [await invitationsOf(orgId), emailsSent()];
    const email = freshEmail();
    expectRateLimited(
      await invite(owner, orgId, email),
      60 * 60,
      /You have sent too many invitations: at most 3 an hour\. Try again in \d+ (minutes?|seconds)\./,
    );
    expect(await invitationsOf(orgId)).toBe(written);
    expect(emailsSent()).toBe(sent);
    expect(fake.messages.some((message) => message.to === email)).toBe(false);
  });

  test('an address over 254 characters → 400 with the reason on the field; nothing written, sent or counted', async () => {
    const owner = await createTestUser();
    const orgId = await createTestOrganization([[owner, 'owner']]);
    const long = `${'a'.repeat(300)}@example.test`;
    const sent = emailsSent();
    const response = await invite(owner, orgId, long);
    expect(response.status).toBe(400);
    expect(response.body.fieldErrors).toEqual({ email: ['An email address has at most 254 characters'] });
    expect(await invitationsOf(orgId)).toBe(0);
    expect(emailsSent()).toBe(sent);
    for (let i = 0; i < PER_USER; i += 1) expect((await invite(owner, orgId)).status).toBe(200);
  });

  test('the per-user limit holds across organizations', async () => {
    const owner = await createTestUser();
    const first = await createTestOrganization([[owner, 'owner']]);
    const second = await createTestOrganization([[owner, 'owner']]);
    for (let i = 0; i < PER_USER; i += 1) expect((await invite(owner, i % 2 ? first : second)).status).toBe(200);
    expect((await invite(owner, second)).status).toBe(429);
  });

  test('resending counts too', async () => {
    const owner = await createTestUser();
    const orgId = await createTestOrganization([[owner, 'owner']]);
    const { invitationId } = (await invite(owner, orgId)).body as { invitationId: string };
    const resend = () => call(servers.resendInvitation, { method: 'POST', token: owner.token, query: { orgId, invitationId } });
    for (let i = 1; i < PER_USER; i += 1) expect((await resend()).status).toBe(200);
    const sent = emailsSent();
    expectRateLimited(await resend(), 60 * 60, /You have sent too many invitations/);
    expect(emailsSent()).toBe(sent);
  });

  test(`the organization's ${PER_ORGANIZATION} a day, whoever sends them; a refused request counts for no one`, async () => {
    const [owner, admin] = await Promise.all([createTestUser(), createTestUser()]);
    const orgId = await createTestOrganization([
      [owner, 'owner'],
      [admin, 'admin'],
    ]);
    for (let i = 0; i < PER_USER; i += 1) expect((await invite(owner, orgId)).status).toBe(200);
    expect((await invite(admin, orgId)).status).toBe(200);
    const sent = emailsSent();
    expectRateLimited(
      await invite(admin, orgId),
      24 * 60 * 60,
      /This organization has sent too many invitations: at most 4 a day\. Try again in \d+ (hours?|minutes?|seconds?)\./,
    );
    expect(await invitationsOf(orgId)).toBe(PER_ORGANIZATION);
    expect(emailsSent()).toBe(sent);
    // The refused invitation did not use up the admin's own allowance elsewhere.
    const elsewhere = await createTestOrganization([[admin, 'owner']]);
    for (let i = 1; i < PER_USER; i += 1) expect((await invite(admin, elsewhere)).status).toBe(200);
  });
});
