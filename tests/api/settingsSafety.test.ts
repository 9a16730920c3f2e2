import sourceRoute from '@/pages/api/orgs/[orgId]/sources/[id]/index';
import destinationRoute from '@/pages/api/orgs/[orgId]/destinations/[id]/index';
import conversionsRoute from '@/pages/api/orgs/[orgId]/conversions/index';
import conversionRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/index';
import routingRoute from '@/pages/api/orgs/[orgId]/apps/[id]/routing';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { setUpConnection } from '@/tests/api/helpers/connections';
import { SANDBOX_TARGETS, setUpConversion } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { createTestUser } from '@/tests/fixtures/firebase';

// Settings that would quietly break a pipeline: unticking an account a connection reads or a conversion
// sends to, and a second conversion of one app to one pixel.
jest.setTimeout(60_000);

let s: Record<'source' | 'destination' | 'conversions' | 'conversion' | 'routing', TestServer>;
let platforms: FakePlatforms;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({
    source: sourceRoute,
    destination: destinationRoute,
    conversions: conversionsRoute,
    conversion: conversionRoute,
    routing: routingRoute,
  });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const org = (orgId: string) => adminDb().collection('organizations').doc(orgId);

describe('unticking an ad account a connection uses', () => {
  test('is refused naming the connection, and on confirmation the account leaves the connection too', async () => {
    const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
    const query = { orgId: setup.orgId, id: setup.sourceId };
    const connection = () => org(setup.orgId).collection('connections').doc(setup.connectionId).get();

    const refused = await call(s.source, { method: 'PATCH', token: setup.owner.token, query, body: { accountIds: ['1234567890'] } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('accounts_in_use');
    expect(refused.body.message).toMatch(/"Ads to warehouse"/);
    expect(refused.body.message).toMatch(/5556667778/);
    // Nothing changed: the source keeps both accounts, the connection both too.
    const source = await org(setup.orgId).collection('sources').doc(setup.sourceId).get();
    expect((source.get('accounts') as Array<{ id: string }>).map((account) => account.id).sort()).toEqual(['1234567890', '5556667778']);
    expect((await connection()).get('source.accounts')).toHaveLength(2);

    const confirmed = await call(s.source, {
      method: 'PATCH',
      token: setup.owner.token,
      query,
      body: { accountIds: ['1234567890'], removeFromConnections: true },
    });
    expect(confirmed.status).toBe(200);
    expect((confirmed.body.source as { accounts: Array<{ id: string }> }).accounts.map((account) => account.id)).toEqual(['1234567890']);
    expect(((await connection()).get('source.accounts') as Array<{ id: string }>).map((account) => account.id)).toEqual(['1234567890']);

    // A connection left with no account: refused even when confirmed.
    const emptied = await call(s.source, {
      method: 'PATCH',
      token: setup.owner.token,
      query,
      body: { accountIds: ['5556667778'], removeFromConnections: true },
    });
    expect(emptied.status).toBe(409);
    expect(emptied.body.code).toBe('connection_needs_account');
    expect(((await connection()).get('source.accounts') as Array<{ id: string }>).map((account) => account.id)).toEqual(['1234567890']);
  });

  test('a destination account a conversion sends to cannot be unticked', async () => {
    const setup = await setUpConversion('meta_ads');
    const query = { orgId: setup.orgId, id: setup.destinationId };
    const refused = await call(s.destination, { method: 'PATCH', token: setup.owner.token, query, body: { accountIds: ['102'] } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('accounts_in_use');
    expect(refused.body.message).toMatch(/"Leads"/);
    const destination = await org(setup.orgId).collection('destinations').doc(setup.destinationId).get();
    expect((destination.get('accounts') as Array<{ id: string }>).map((account) => account.id)).toEqual(['101']);
    // Adding an account beside it is fine.
    const added = await call(s.destination, { method: 'PATCH', token: setup.owner.token, query, body: { accountIds: ['101', '102'] } });
    expect(added.status).toBe(200);
  });

  test('another organization’s source is not found, and nothing changes', async () => {
    const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
    const outsider = await createTestUser();
    const refused = await call(s.source, {
      method: 'PATCH',
      token: outsider.token,
      query: { orgId: setup.orgId, id: setup.sourceId },
      body: { accountIds: ['1234567890'], removeFromConnections: true },
    });
    expect(refused.status).toBe(404);
    expect((await org(setup.orgId).collection('connections').doc(setup.connectionId).get()).get('source.accounts')).toHaveLength(2);
  });

  test('removeFromConnections must be true or false', async () => {
    const setup = await setUpConnection({ serviceAccountKey: platforms.serviceAccountKey });
    const refused = await call(s.source, {
      method: 'PATCH',
      token: setup.owner.token,
      query: { orgId: setup.orgId, id: setup.sourceId },
      body: { accountIds: ['1234567890'], removeFromConnections: 'yes' },
    });
    expect(refused.status).toBe(400);
  });
});

describe('one conversion per app and destination target', () => {
  const mapping = { events: [], value: { mode: 'event' }, identifiers: ['email', 'clickIds', 'context'] };

  test('the wizard cannot add a second conversion of an app to the pixel its routing sends to, nor routing to a wizard’s pixel', async () => {
    const setup = await setUpConversion('meta_ads'); // "Leads": the app → pixel 555000111, every event
    const target = { destinationId: setup.destinationId, ...SANDBOX_TARGETS.meta_ads };
    const create = (body: Record<string, unknown>) =>
      call(s.conversions, { method: 'POST', token: setup.owner.token, query: { orgId: setup.orgId }, body });
    const count = async () => (await org(setup.orgId).collection('conversions').get()).size;

    const twin = await create({ name: 'Leads again', source: { type: 'app', appId: setup.appId }, destination: target, mapping });
    expect(twin.status).toBe(409);
    expect(twin.body.code).toBe('duplicate_target');
    expect(twin.body.message).toMatch(/"Leads" already sends/);
    expect(await count()).toBe(1);

    // The routing page picking the same pixel is refused too: it would be the second conversion.
    const routing = await call(s.routing, {
      method: 'PUT',
      token: setup.owner.token,
      query: { orgId: setup.orgId, id: setup.appId },
      body: { platform: 'meta_ads', ...target },
    });
    expect(routing.status).toBe(409);
    expect(routing.body.code).toBe('duplicate_target');
    expect(await count()).toBe(1);

    // Events the other does not take are no twin: once "Leads" takes only Lead, Purchase may go elsewhere.
    const narrowed = await call(s.conversion, {
      method: 'PATCH',
      token: setup.owner.token,
      query: { orgId: setup.orgId, id: setup.conversionId },
      body: { mapping: { ...mapping, events: ['Lead'] } },
    });
    if (narrowed.status !== 200) console.log(narrowed.body);
    expect(narrowed.status).toBe(200);
  });

  test('routing first, then the wizard: the second is refused, and the routing page may pick its own pixel again', async () => {
    const setup = await setUpConversion('meta_ads');
    await adminDb().recursiveDelete(org(setup.orgId).collection('conversions').doc(setup.conversionId));
    const target = { destinationId: setup.destinationId, ...SANDBOX_TARGETS.meta_ads };
    const put = () =>
      call(s.routing, {
        method: 'PUT',
        token: setup.owner.token,
        query: { orgId: setup.orgId, id: setup.appId },
        body: { platform: 'meta_ads', ...target },
      });
    expect((await put()).status).toBe(200);
    expect((await put()).status).toBe(200);
    const twin = await call(s.conversions, {
      method: 'POST',
      token: setup.owner.token,
      query: { orgId: setup.orgId },
      body: { name: 'Leads', source: { type: 'app', appId: setup.appId }, destination: target, mapping },
    });
    expect(twin.status).toBe(409);
    expect(twin.body.message).toMatch(/routing page/);
    const conversions = await org(setup.orgId).collection('conversions').get();
    expect(conversions.docs.map((doc) => doc.get('routing'))).toEqual([true]);
  });
});
