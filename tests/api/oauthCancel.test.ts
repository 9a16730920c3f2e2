import cancel from '@/pages/api/orgs/[orgId]/oauth/cancel';
import complete from '@/pages/api/orgs/[orgId]/oauth/complete';
import start from '@/pages/api/orgs/[orgId]/oauth/start';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { completionOf, consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

const APP_URL = 'http://app.test';
let s: Record<'cancel' | 'complete' | 'start', TestServer>;
let platforms: FakePlatforms;
let owner: TestUser;
let outsider: TestUser;
let orgId: string;

beforeAll(async () => {
  s = await serveHandlers({ cancel, complete, start });
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms), { APP_URL });
  [owner, outsider] = await Promise.all([createTestUser(), createTestUser()]);
  orgId = await createTestOrganization([[owner, 'owner']]);
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

async function startFlow(body: Record<string, unknown> = { platform: 'google_ads', kind: 'source' }) {
  const response = await call(s.start, { method: 'POST', token: owner.token, query: { orgId }, body });
  expect(response.status).toBe(200);
  return response.body.url as string;
}

/** What the return page sends when the provider comes back with an error instead of a code. */
const cancelWith = (user: TestUser, returned: URL) =>
  call(s.cancel, {
    method: 'POST',
    token: user.token,
    query: { orgId },
    body: {
      state: returned.searchParams.get('state'),
      error: returned.searchParams.get('error') ?? undefined,
      returnPath: returned.pathname,
    },
  });

const finish = (returned: URL) =>
  call(s.complete, {
    method: 'POST',
    token: owner.token,
    query: { orgId },
    body: completionOf(returned),
  });

const countSources = async () => (await adminDb().collection('organizations').doc(orgId).collection('sources').get()).size;

test('Cancel on the consent page spends the state: Allow on the same consent page afterwards connects nothing', async () => {
  const consentUrl = await startFlow();
  const denied = await consentTo(consentUrl, 'deny');
  expect(denied.searchParams.get('error')).toBe('access_denied');

  const cancelled = await cancelWith(owner, denied);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ cancelled: true, platform: 'google_ads', kind: 'source', reauthenticating: false });

  const before = await countSources();
  const allowed = await consentTo(consentUrl, 'allow');
  const response = await finish(allowed);
  expect(response.status).toBe(400);
  expect(response.body.code).toBe('invalid_state');
  expect(await countSources()).toBe(before);
});

test('a state is spent once: cancelling twice, or cancelling after completing, is refused', async () => {
  const denied = await consentTo(await startFlow(), 'deny');
  expect((await cancelWith(owner, denied)).status).toBe(200);
  const again = await cancelWith(owner, denied);
  expect(again.status).toBe(400);
  expect(again.body.code).toBe('invalid_state');

  const allowed = await consentTo(await startFlow(), 'allow');
  expect((await finish(allowed)).status).toBe(200);
  expect((await cancelWith(owner, allowed)).body.code).toBe('invalid_state');
});

test('an outsider cannot cancel in the organization; bad input is refused with field errors', async () => {
  const denied = await consentTo(await startFlow(), 'deny');
  expect((await cancelWith(outsider, denied)).status).toBe(404);
  const missing = await call(s.cancel, { method: 'POST', token: owner.token, query: { orgId }, body: { returnPath: '/nowhere' } });
  expect(missing.status).toBe(400);
  expect(missing.body.fieldErrors).toMatchObject({ state: [expect.any(String)], returnPath: [expect.any(String)] });
  // The outsider's attempt did not spend the owner's state... nor does the owner's cancel fail afterwards.
  expect((await cancelWith(owner, denied)).status).toBe(200);
});
