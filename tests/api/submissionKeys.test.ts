import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import keyRoute from '@/pages/api/orgs/[orgId]/apps/[id]/key';
import publishableKeyRoute from '@/pages/api/orgs/[orgId]/apps/[id]/publishableKey';
import snippetRoute from '@/pages/api/orgs/[orgId]/apps/[id]/snippet';
import { createApp, getApp, rotateSubmissionKey } from '@/lib/server/repos/apps';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { tapConversions } from '@/tests/api/helpers/queue';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// Submission keys: a secret key only in the Authorization header, who may replace or revoke a key
// (the secret one and the website's publishable one), and ingest's refusals in the JSON envelope.
let s: Record<'submissions' | 'key' | 'publishable' | 'snippet', TestServer>;
let tap: Awaited<ReturnType<typeof tapConversions>>;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let orgId: string;
let appId: string;
let secret: string;

const WEBSITE = 'https://shop.example';

beforeAll(async () => {
  s = await serveHandlers(
    { submissions, key: keyRoute, publishable: publishableKeyRoute, snippet: snippetRoute },
    { submissions: submissionsConfig },
  );
  tap = await tapConversions();
  [owner, admin, member] = await Promise.all([createTestUser(), createTestUser(), createTestUser()]);
  orgId = await createTestOrganization([
    [owner, 'owner'],
    [admin, 'admin'],
    [member, 'member'],
  ]);
  ({ id: appId } = await createApp(orgId, owner.uid, {
    name: 'Shop',
    websiteUrl: WEBSITE,
    gtmContainerId: 'GTM-SHOP1',
    payloadUrls: ['/thanks'],
  }));
  ({ key: secret } = await rotateSubmissionKey(orgId, appId));
});
afterAll(async () => {
  await closeAll(s);
  await tap.close();
});

const queued = async () => (await tap.read()).filter((message) => message.attributes.source === `app:${appId}`);

/** A raw POST to /api/submissions: any key place, body, type and origin. */
const post = (options: { key?: string; bearer?: string; body: string; type?: string; origin?: string }) =>
  fetch(`${s.submissions.url}/${options.key ? `?key=${options.key}` : ''}`, {
    method: 'POST',
    headers: {
      'Content-Type': options.type ?? 'application/json',
      ...(options.bearer ? { Authorization: `Bearer ${options.bearer}` } : {}),
      ...(options.origin ? { Origin: options.origin } : {}),
    },
    body: options.body,
  });

const envelope = async (response: Response) => {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as { success: boolean; code: string; message: string; fieldErrors?: Record<string, string[]> };
};

describe('a secret key', () => {
  test('in the query string → 401 whatever the origin and body type; nothing queued', async () => {
    const event = JSON.stringify({ event: 'Lead', email: 'url@example.com' });
    for (const attempt of [
      { key: secret, body: event, type: 'text/plain', origin: 'https://evil.example' },
      { key: secret, body: event, type: 'text/plain', origin: WEBSITE },
      { key: secret, body: event },
    ]) {
      const response = await post(attempt);
      expect(response.status).toBe(401);
      expect(await envelope(response)).toMatchObject({ success: false, code: 'secret_key_in_url' });
    }
    expect(await queued()).toHaveLength(0);
  });

  test('in the Authorization header still works', async () => {
    const response = await post({ bearer: secret, body: JSON.stringify({ event: 'Lead', eventId: 'header-1' }) });
    expect(response.status).toBe(202);
    expect((await queued()).map((message) => message.event.id)).toEqual(['header-1']);
  });
});

describe('ingest answers bad bodies in the JSON envelope', () => {
  test('not JSON → 400 with a sentence; as text/plain too', async () => {
    for (const type of ['application/json', 'text/plain']) {
      const response = await post({ bearer: secret, body: '{"event": "Lead",', type });
      expect(response.status).toBe(400);
      expect(await envelope(response)).toMatchObject({
        success: false,
        code: 'invalid_request',
        message: expect.stringMatching(/not JSON/),
      });
    }
  });

  test('over 1 MB → 413 in JSON', async () => {
    const response = await post({ bearer: secret, body: JSON.stringify({ event: 'Lead', pageUrl: 'x'.repeat(1_100_000) }) });
    expect(response.status).toBe(413);
    expect(await envelope(response)).toMatchObject({ success: false, code: 'body_too_large' });
  });

  test('a missing event name is said in words; a body that is no object too', async () => {
    const missing = await post({ bearer: secret, body: JSON.stringify({ email: 'a@example.com' }) });
    expect(missing.status).toBe(400);
    expect((await envelope(missing)).fieldErrors).toEqual({ event: ['Name the event, e.g. "Lead"'] });
    for (const body of ['null', '[]', '"Lead"']) {
      const response = await post({ bearer: secret, body });
      expect(response.status).toBe(400);
      expect(await envelope(response)).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/JSON object/) });
    }
    expect(await queued()).toHaveLength(0);
  });
});

describe('who may replace or revoke a key', () => {
  const app = { orgId: '', id: '' };
  beforeAll(() => Object.assign(app, { orgId, id: appId }));

  test('a member may neither replace nor revoke the secret key; it keeps working', async () => {
    const before = await getApp(orgId, appId);
    expect((await call(s.key, { method: 'POST', token: member.token, query: app })).status).toBe(403);
    expect((await call(s.key, { method: 'DELETE', token: member.token, query: app })).status).toBe(403);
    expect((await getApp(orgId, appId)).submissionKey).toEqual(before.submissionKey);
    expect((await post({ bearer: secret, body: JSON.stringify({ event: 'Lead', eventId: 'still-1' }) })).status).toBe(202);
    await queued();
  });

  test('an admin may; another organization’s owner gets 404', async () => {
    const stranger = await createTestUser();
    await createTestOrganization([[stranger, 'owner']]);
    expect((await call(s.key, { method: 'POST', token: stranger.token, query: app })).status).toBe(404);
    expect((await call(s.publishable, { method: 'POST', token: stranger.token, query: app })).status).toBe(404);
    expect((await call(s.publishable, { method: 'DELETE', token: stranger.token, query: app })).status).toBe(404);
    const rotated = await call(s.key, { method: 'POST', token: admin.token, query: app });
    expect(rotated.status).toBe(200);
    expect((await post({ bearer: secret, body: JSON.stringify({ event: 'Lead' }) })).status).toBe(401);
    secret = rotated.body.key as string;
    expect((await post({ bearer: secret, body: JSON.stringify({ event: 'Lead', eventId: 'new-1' }) })).status).toBe(202);
    await queued();
  });

  test('the publishable key: replaced (the old one stops), revoked (the snippet is not remade behind the user’s back), made again', async () => {
    const fromWebsite = (key: string) =>
      post({ key, body: JSON.stringify({ event: 'Lead', pageUrl: `${WEBSITE}/thanks` }), type: 'text/plain', origin: WEBSITE });
    const first = (await call(s.snippet, { token: member.token, query: app })).body.publishableKey as string;
    expect(first).toMatch(/^sbp_/);
    expect((await fromWebsite(first)).status).toBe(202);

    // A member may not; an owner may.
    expect((await call(s.publishable, { method: 'POST', token: member.token, query: app })).status).toBe(403);
    expect((await call(s.publishable, { method: 'DELETE', token: member.token, query: app })).status).toBe(403);
    const replaced = await call(s.publishable, { method: 'POST', token: owner.token, query: app });
    expect(replaced.status).toBe(200);
    const second = replaced.body.publishableKey as string;
    expect(second).toMatch(/^sbp_/);
    expect(second).not.toBe(first);
    expect(replaced.body.snippet).toContain(`?key=${second}`);
    expect((await fromWebsite(first)).status).toBe(401);
    expect((await fromWebsite(second)).status).toBe(202);

    const revoked = await call(s.publishable, { method: 'DELETE', token: admin.token, query: app });
    expect(revoked.status).toBe(200);
    expect(revoked.body.app).toMatchObject({ publishableKey: 'revoked' });
    expect((await fromWebsite(second)).status).toBe(401);
    const snippet = await call(s.snippet, { token: owner.token, query: app });
    expect(snippet.status).toBe(409);
    expect(snippet.body).toMatchObject({ code: 'publishable_key_revoked' });

    const again = await call(s.publishable, { method: 'POST', token: owner.token, query: app });
    expect(again.status).toBe(200);
    expect((await fromWebsite(again.body.publishableKey as string)).status).toBe(202);
    expect((await call(s.snippet, { token: owner.token, query: app })).body.publishableKey).toBe(again.body.publishableKey);
    await queued();
  });
});
