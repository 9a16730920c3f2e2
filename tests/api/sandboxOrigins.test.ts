import complete from '@/pages/api/orgs/[orgId]/oauth/complete';
import start from '@/pages/api/orgs/[orgId]/oauth/start';
import { appOrigins, completionOf, consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// The app opened on 127.0.0.1 (APP_URL=http://127.0.0.1:<port>), as `npm run dev` allows: the sandbox
// registers the configured origin's return routes as well as localhost's.
let s: Record<'complete' | 'start', TestServer>;
let platforms: FakePlatforms;
let owner: TestUser;
let orgId: string;
let appUrl: string;
let port: number;

beforeAll(async () => {
  s = await serveHandlers({ complete, start });
  port = Number(new URL(s.start.url).port);
  appUrl = `http://127.0.0.1:${port}`;
  platforms = await startFakePlatforms({ appUrl: appOrigins(port, appUrl) });
  Object.assign(process.env, platformsEnv(platforms), { APP_URL: appUrl });
  owner = await createTestUser();
  orgId = await createTestOrganization([[owner, 'owner']]);
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

async function startFlow(platform: string, kind: string) {
  const response = await call(s.start, { method: 'POST', token: owner.token, query: { orgId }, body: { platform, kind } });
  expect(response.status).toBe(200);
  return response.body.url as string;
}

test('dev registers the configured APP_URL and localhost, once each', () => {
  expect(appOrigins(port, appUrl)).toEqual([appUrl, `http://localhost:${port}`]);
  expect(appOrigins(port, `http://localhost:${port}`)).toEqual([`http://localhost:${port}`]);
  expect(appOrigins(port, undefined)).toEqual([`http://localhost:${port}`]);
});

test.each([
  ['google_ads', 'source'],
  ['meta_ads', 'destination'],
  ['microsoft_ads', 'destination'],
])('a %s consent round trip works when the app runs on http://127.0.0.1:<port>', async (platform, kind) => {
  const consentUrl = await startFlow(platform, kind);
  expect(new URL(consentUrl).searchParams.get('redirect_uri')).toMatch(new RegExp(`^${appUrl}/`));
  const returned = await consentTo(consentUrl);
  expect(returned.origin).toBe(appUrl);
  const done = await call(s.complete, {
    method: 'POST',
    token: owner.token,
    query: { orgId },
    body: completionOf(returned),
  });
  expect(done.status).toBe(200);
  expect(done.body.id).toEqual(expect.any(String));
});

test('a sandbox that registers only localhost refuses the 127.0.0.1 return route (redirect_uri_mismatch)', async () => {
  const localhostOnly = await startFakePlatforms({ appUrl: `http://localhost:${port}` });
  try {
    const consentUrl = new URL(await startFlow('google_ads', 'source'));
    const refused = await fetch(`${localhostOnly.url}${consentUrl.pathname}${consentUrl.search}`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('redirect_uri_mismatch');
  } finally {
    await localhostOnly.close();
  }
});
