import handler from '@/pages/api/getOrganizationData';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { call, serveHandler, type TestServer } from '@/tests/api/helpers/server';

let server: TestServer;
let member: TestUser;
let outsider: TestUser;
let orgId: string;

beforeAll(async () => {
  server = await serveHandler(handler);
  [member, outsider] = await Promise.all([createTestUser(), createTestUser()]);
  orgId = await createTestOrganization([[member, 'member']], { company_logo: 'https://example.test/logo.png' });
});
afterAll(() => server.close());

test('a member reads the organization document, without billing ids', async () => {
  const response = await call(server, { query: { documentId: orgId, type: 'organization' }, token: member.token });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    status: 200,
    role: 'member',
    data: {
      organization_id: orgId,
      name: expect.stringMatching(/^Org /),
      company_name: expect.stringMatching(/^Org /),
      logo: 'https://example.test/logo.png',
      company_logo: 'https://example.test/logo.png',
      subscription: { status: 'active', plan: 'growth', current_period_end: '2099-01-01T00:00:00.000Z', past_due_since: null },
      has_billing_account: false,
    },
  });
  expect(JSON.stringify(response.body)).not.toContain('cus_secret');
});

test("another organization's member gets 404", async () => {
  const response = await call(server, { query: { documentId: orgId, type: 'organization' }, token: outsider.token });
  expect(response.status).toBe(404);
  expect(response.body).not.toHaveProperty('data');
});

test('an unknown type or a missing id → 400 with field errors', async () => {
  const response = await call(server, { query: { type: 'secrets' }, token: member.token });
  expect(response.status).toBe(400);
  expect(response.body.fieldErrors).toEqual({ documentId: [expect.any(String)], type: [expect.any(String)] });
});

test('no token → 401', async () => {
  expect((await call(server, { query: { documentId: orgId, type: 'organization' } })).status).toBe(401);
});
