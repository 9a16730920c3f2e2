import { completionOf, consentTo } from '@/sandbox/platforms';
import type { TestUser } from '@/tests/fixtures/firebase';
import { call, type TestServer } from '@/tests/api/helpers/server';

/** The served OAuth routes of an organization (`pages/api/orgs/[orgId]/oauth/{start,complete}`). */
export interface OAuthRoutes {
  start: TestServer;
  complete: TestServer;
}

/**
 * Connects a platform through the OAuth routes as a browser would: start, Allow on the sandbox's consent
 * page, complete (with `completion` added to what the return carried). Start and complete must answer 200;
 * answers the id of the source or destination made, or reconnected with an `objectId`.
 */
export async function connectThroughConsent(
  routes: OAuthRoutes,
  user: TestUser,
  orgId: string,
  start: { platform: string; kind: 'source' | 'destination'; objectId?: string },
  completion: Record<string, unknown> = {},
): Promise<string> {
  const started = await call(routes.start, { method: 'POST', token: user.token, query: { orgId }, body: start });
  expect(started.status).toBe(200);
  const returned = await consentTo(started.body.url as string);
  const done = await call(routes.complete, {
    method: 'POST',
    token: user.token,
    query: { orgId },
    body: { ...completionOf(returned), ...completion },
  });
  expect(done.status).toBe(200);
  return done.body.id as string;
}
