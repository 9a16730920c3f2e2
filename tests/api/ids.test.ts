/**
 * Every API route, with ids that Firestore refuses or reads as another path (`__x__`, `..`, `.`,
 * `a/b`, empty), in each place an id comes from: route segments → 404, query and body fields → 400.
 * Never a 500. The routes are found by walking pages/api, so a new route is walked too.
 */
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import type { NextApiHandler, PageConfig } from 'next';
import sendInvitation from '@/pages/api/sendInvitation';
import { createApp } from '@/lib/server/repos/apps';
import { customerIoEnv, startFakeCustomerIo, type FakeCustomerIo } from '@/sandbox/customerio';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';

jest.setTimeout(120_000);

const API_DIR = path.join(process.cwd(), 'pages/api');
const BAD_IDS = ['__x__', '..', '.', 'a/b', ''];
// An empty route segment is no route at all (`/api/orgs//apps`), so the path gets the others.
const BAD_SEGMENTS = BAD_IDS.filter(Boolean);
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Every route file of pages/api as its URL pattern: `/api/orgs/[orgId]/apps/[id]`. */
function routeFiles(dir = API_DIR): Array<{ file: string; route: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(file);
    const route = `/api/${path.relative(API_DIR, file).replace(/\.ts$/, '')}`.replace(/\/index$/, '');
    return [{ file, route }];
  });
}

/**
 * Placeholders for the ids a request carries in its query or body; each is replaced by a real,
 * valid id, and then, one at a time, by a bad one.
 */
type Ids = Record<'org' | 'self' | 'app' | 'invitation' | 'member' | 'missing', string>;
const ID = (name: keyof Ids) => `{${name}}`;
const EMAIL = '{email}';

/** The query and body each route and method takes, with its ids as placeholders (routes without ids need none). */
const INPUTS: Record<string, Partial<Record<string, { query?: Record<string, string>; body?: unknown }>>> = {
  '/api/acceptInvitation': { POST: { body: { invitationId: ID('invitation'), userId: ID('self') } } },
  '/api/rejectInvitation': { POST: { body: { invitationId: ID('invitation') } } },
  '/api/invitationPreview': { POST: { body: { invitationId: ID('invitation'), token: 'x'.repeat(43) } } },
  '/api/billing/checkout': { POST: { body: { organizationId: ID('org'), plan: 'growth' } } },
  '/api/billing/customer': { POST: { body: { email: EMAIL, organizationId: ID('org'), userId: ID('self') } } },
  '/api/billing/portal': { POST: { body: { organizationId: ID('org') } } },
  '/api/createOrganization': { POST: { body: { companyName: 'Ids Inc', userId: ID('self') } } },
  '/api/customerio/identify': {
    POST: { body: { userId: ID('self'), traits: { user_id: ID('self'), email: EMAIL, org_id: ID('org') } } },
  },
  '/api/customerio/track': { POST: { body: { userId: ID('self'), eventName: 'Error Received', properties: { org_id: ID('org') } } } },
  '/api/delete': { GET: { query: { documentId: ID('org'), type: 'app', key: ID('missing') } } },
  '/api/getIntercomHash': { POST: { body: { userId: ID('self') } } },
  '/api/getOrSaveUser': { POST: { body: { email: EMAIL, fullName: 'Test User', uid: ID('self'), photoURL: '' } } },
  '/api/getOrganizationData': { GET: { query: { documentId: ID('org'), type: 'organization' } } },
  '/api/getOrganizationIds': { GET: { query: { userId: ID('self') } } },
  '/api/getSentInvitation': { POST: { body: { organizationId: ID('org') } } },
  '/api/getTeamMembers': { POST: { body: { organizationId: ID('org') } } },
  '/api/getUser': { POST: { body: { userId: ID('self') } } },
  '/api/identifyUserWithOrganization': { POST: { body: { userId: ID('self'), organizationId: ID('org') } } },
  '/api/removeMemberFromOrganization': { POST: { body: { organizationId: ID('org'), memberId: ID('member') } } },
  '/api/sendInvitation': {
    POST: { body: { email: 'someone@example.test', organization_id: ID('org'), inviter_user_id: ID('self'), inviter_email: EMAIL } },
  },
  '/api/orgs/[orgId]/apps/[id]/routing': { PUT: { body: { platform: 'mixpanel', destinationId: ID('missing') } } },
  '/api/orgs/[orgId]/oauth/start': { POST: { body: { platform: 'google', kind: 'source', objectId: ID('missing') } } },
};

/** The real value of each route segment when it is not the one being broken. */
const SEGMENT_IDS: Record<string, keyof Ids> = { orgId: 'org', id: 'app', invitationId: 'invitation', memberId: 'member', a: 'org' };
const SEGMENT_VALUES: Record<string, string> = { b: 'cs_test_ids' };

/** Every place a placeholder sits in a value, as a path of keys. */
function placeholders(value: unknown, at: string[] = []): string[][] {
  if (typeof value === 'string') return /^\{\w+\}$/.test(value) ? [at] : [];
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, inner]) => placeholders(inner, [...at, key]));
  return [];
}

/** The value with placeholders filled in, and the one at `broken` (if any) replaced by `bad`. */
function fill(value: unknown, ids: Ids & { email: string }, broken: string[] | null, bad: string, at: string[] = []): unknown {
  if (broken && at.join('.') === broken.join('.')) return bad;
  if (typeof value === 'string') return value.replace(/^\{(\w+)\}$/, (_, name: keyof Ids | 'email') => ids[name]);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner, ids, broken, bad, [...at, key])]));
  }
  return value;
}

/** A request over node:http, so a path like `/api/orgs/../apps` reaches the server as written. */
function rawCall(server: TestServer, method: string, urlPath: string, token: string, body?: unknown) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${server.url}${urlPath}`, {
      method,
      path: urlPath,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {}),
      },
    });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A route's methods, as its 405 answer lists them. */
async function methodsOf(server: TestServer, urlPath: string, token: string): Promise<string[]> {
  const response = await new Promise<string>((resolve, reject) => {
    const req = request(`${server.url}${urlPath}`, { method: 'TRACE', path: urlPath, headers: { Authorization: `Bearer ${token}` } });
    req.on('response', (res) => {
      res.resume();
      resolve(String(res.headers.allow ?? ''));
    });
    req.on('error', reject);
    req.end();
  });
  return response
    .split(',')
    .map((method) => method.trim())
    .filter((method) => METHODS.includes(method));
}

const pathOf = (route: string, values: Record<string, string>) =>
  route.replace(/\[(\w+)\]/g, (_, name: string) =>
    values[name] === '..' || values[name] === '.' ? values[name]! : encodeURIComponent(values[name]!),
  );

let fake: FakeCustomerIo;
let caller: TestUser;
let ids: Ids & { email: string };

beforeAll(async () => {
  fake = await startFakeCustomerIo();
  Object.assign(process.env, customerIoEnv(fake), { APP_URL: 'http://app.test' });
  // The caller may do everything: owner of the organization and super admin, so a request goes as deep as it can.
  const member = await createTestUser();
  caller = await createTestUser({ superAdmin: true });
  const org = await createTestOrganization([
    [caller, 'owner'],
    [member, 'member'],
  ]);
  const app = await createApp(org, caller.uid, {
    name: 'Ids',
    websiteUrl: 'https://ids.example',
    gtmContainerId: 'GTM-IDS1',
    payloadUrls: [],
  });
  const inviting = await serveHandler(sendInvitation);
  const invited = await call(inviting, {
    method: 'POST',
    token: caller.token,
    body: { email: `ids-${Date.now()}@example.test`, organization_id: org, inviter_user_id: caller.uid, inviter_email: caller.email },
  });
  await inviting.close();
  ids = {
    org,
    self: caller.uid,
    app: app.id,
    invitation: String(invited.body.invitationId),
    member: member.uid,
    missing: 'missing-id',
    email: caller.email,
  };
});
afterAll(() => fake.close());

interface Outcome {
  where: string;
  status: number;
  expected: number;
  body: string;
}

/** Sends every broken variant of one route and collects what came back. */
async function walk(file: string, route: string): Promise<Outcome[]> {
  const routeModule = (await import(file)) as { default: NextApiHandler; config?: PageConfig };
  const server = await serveHandler(routeModule.default, routeModule.config, route);
  const outcomes: Outcome[] = [];
  try {
    const segments = [...route.matchAll(/\[(\w+)\]/g)].map((match) => match[1]!);
    const validSegments = Object.fromEntries(segments.map((name) => [name, SEGMENT_VALUES[name] ?? ids[SEGMENT_IDS[name]!]]));
    for (const method of await methodsOf(server, pathOf(route, validSegments), caller.token)) {
      const input = INPUTS[route]?.[method] ?? {};
      const send = (segmentValues: Record<string, string>, query: unknown, body: unknown) => {
        const search = query && Object.keys(query).length ? `?${new URLSearchParams(query as Record<string, string>)}` : '';
        return rawCall(server, method, `${pathOf(route, segmentValues)}${search}`, caller.token, method === 'GET' ? undefined : body);
      };
      const validQuery = fill(input.query ?? {}, ids, null, '');
      const validBody = fill(input.body ?? {}, ids, null, '');
      for (const bad of BAD_SEGMENTS) {
        for (const name of segments) {
          const response = await send({ ...validSegments, [name]: bad }, validQuery, validBody);
          outcomes.push({
            where: `${method} ${route} [${name}]=${JSON.stringify(bad)}`,
            status: response.status,
            expected: 404,
            body: response.body,
          });
        }
      }
      for (const bad of BAD_IDS) {
        for (const at of placeholders(input.query)) {
          const response = await send(validSegments, fill(input.query, ids, at, bad), validBody);
          outcomes.push({
            where: `${method} ${route} ?${at.join('.')}=${JSON.stringify(bad)}`,
            status: response.status,
            expected: 400,
            body: response.body,
          });
        }
        for (const at of placeholders(input.body)) {
          const response = await send(validSegments, validQuery, fill(input.body, ids, at, bad));
          outcomes.push({
            where: `${method} ${route} body.${at.join('.')}=${JSON.stringify(bad)}`,
            status: response.status,
            expected: 400,
            body: response.body,
          });
        }
      }
    }
  } finally {
    await server.close();
  }
  return outcomes;
}

test.each(routeFiles().map(({ file, route }) => [route, file]))(
  '%s: bad ids → 404 in the path, 400 in fields, never 500',
  async (route, file) => {
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const outcomes = await walk(file, route).finally(() => spy.mockRestore());
    const wrong = outcomes
      .filter((outcome) => outcome.status !== outcome.expected)
      .map(({ where, status, body }) => `${where} → ${status} ${body.slice(0, 100)}`);
    expect(wrong).toEqual([]);
  },
);

test('the walk covers every route file and finds the id places', () => {
  const routes = routeFiles().map(({ route }) => route);
  expect(routes).toEqual(expect.arrayContaining(['/api/orgs/[orgId]/members/[memberId]', '/api/customerio/track', '/api/submissions']));
  for (const route of Object.keys(INPUTS)) expect(routes).toContain(route);
});
