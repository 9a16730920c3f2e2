import conversionsRoute from '@/pages/api/orgs/[orgId]/conversions/index';
import conversionRoute from '@/pages/api/orgs/[orgId]/conversions/[id]/index';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectWarehouse } from '@/tests/api/helpers/connections';
import {
  connectDestination,
  type ConversionSetup,
  bigqueryTableSource,
  SANDBOX_TARGETS,
  setUpConversion,
} from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';

// What a destination needs of a mapping, checked on save: a mapping that can deliver nothing (Microsoft
// without its click id) is refused with the field named, and nothing is saved.
let s: Record<'list' | 'item', TestServer>;
let platforms: FakePlatforms;
let microsoft: ConversionSetup;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ list: conversionsRoute, item: conversionRoute });
  // Its own conversion takes Lead only, so a Purchase one to the same goal is no twin.
  microsoft = await setUpConversion('microsoft_ads', { events: ['Lead'] });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const storedConversions = async (orgId: string) =>
  (await adminDb().collection('organizations').doc(orgId).collection('conversions').get()).docs.map((doc) => doc.id).sort();

const fieldErrorsOf = (answer: { body: unknown }) => (answer.body as { fieldErrors?: Record<string, string[]> }).fieldErrors;

const create = (setup: ConversionSetup, body: Record<string, unknown>) =>
  call(s.list, { method: 'POST', token: setup.owner.token, query: { orgId: setup.orgId }, body });

const toMicrosoft = (identifiers: string[], source: Record<string, unknown> = { type: 'app', appId: microsoft.appId }) => ({
  name: 'Purchases',
  source,
  destination: { destinationId: microsoft.destinationId, ...SANDBOX_TARGETS.microsoft_ads },
  mapping: { events: ['Purchase'], value: { mode: 'event' }, identifiers },
});

test('Microsoft without the click id → 400 naming mapping.identifiers and msclkid; nothing saved', async () => {
  const before = await storedConversions(microsoft.orgId);
  const refused = await create(microsoft, toMicrosoft(['email', 'phone', 'name']));
  expect(refused.status).toBe(400);
  expect(fieldErrorsOf(refused)?.['mapping.identifiers']?.[0]).toMatch(/msclkid/);
  expect(await storedConversions(microsoft.orgId)).toEqual(before);
});

test('Microsoft with the click id saves', async () => {
  const created = await create(microsoft, toMicrosoft(['email', 'clickIds']));
  expect(created.status).toBe(200);
  expect(created.body.conversion).toMatchObject({
    destination: { platform: 'microsoft_ads' },
    mapping: { identifiers: ['email', 'clickIds'] },
  });
});

test('an edit that drops the click id → 400, and the stored mapping stays', async () => {
  const as = { token: microsoft.owner.token, query: { orgId: microsoft.orgId, id: microsoft.conversionId } };
  const refused = await call(s.item, {
    ...as,
    method: 'PATCH',
    body: { name: 'Renamed', mapping: { events: ['Lead'], value: { mode: 'event' }, identifiers: ['email'] } },
  });
  expect(refused.status).toBe(400);
  expect(fieldErrorsOf(refused)?.['mapping.identifiers']?.[0]).toMatch(/msclkid/);
  const detail = await call(s.item, as);
  expect(detail.body).toMatchObject({ conversion: { name: 'Leads', mapping: { identifiers: expect.arrayContaining(['clickIds']) } } });
  // A rename alone still saves: it changes nothing the platform needs.
  expect((await call(s.item, { ...as, method: 'PATCH', body: { name: 'Leads' } })).status).toBe(200);
});

test('a BigQuery read to Microsoft with no msclkid column → 400 on source.columns.msclkid; with one it saves', async () => {
  const bigqueryId = await connectWarehouse(microsoft.orgId, microsoft.owner.uid, 'bigquery', platforms.serviceAccountKey);
  const source = (columns: Record<string, string>) =>
    bigqueryTableSource(bigqueryId, { columns: { eventId: 'lead_id', eventTime: 'updated_at', email: 'email', ...columns } });
  const before = await storedConversions(microsoft.orgId);
  const refused = await create(microsoft, toMicrosoft(['email', 'clickIds'], source({ gclid: 'gclid' })));
  expect(refused.status).toBe(400);
  expect(fieldErrorsOf(refused)?.['source.columns.msclkid']?.[0]).toMatch(/Microsoft click id/);
  expect(await storedConversions(microsoft.orgId)).toEqual(before);
  // The fake table has no msclkid column; a click id column it has stands in for one.
  const saved = await create(microsoft, toMicrosoft(['email', 'clickIds'], source({ msclkid: 'gclid' })));
  expect(saved.status).toBe(200);
});

test('Google Ads with neither a click id nor a user identifier → 400; Meta takes an external id alone', async () => {
  const googleId = await connectDestination(microsoft.orgId, microsoft.owner.uid, 'google_ads');
  const toGoogle = (identifiers: string[]) => ({
    name: 'Google purchases',
    source: { type: 'app', appId: microsoft.appId },
    destination: { destinationId: googleId, ...SANDBOX_TARGETS.google_ads },
    mapping: { events: ['Purchase'], value: { mode: 'event' }, identifiers },
  });
  const refused = await create(microsoft, toGoogle(['externalId', 'context', 'address']));
  expect(refused.status).toBe(400);
  expect(fieldErrorsOf(refused)?.['mapping.identifiers']?.[0]).toMatch(/Google Ads needs/);
  expect((await create(microsoft, toGoogle(['name', 'address']))).status).toBe(200);

  const meta = await setUpConversion('meta_ads', { events: ['Lead'] });
  const toMeta = (identifiers: string[]) => ({
    name: 'Meta purchases',
    source: { type: 'app', appId: meta.appId },
    destination: { destinationId: meta.destinationId, ...SANDBOX_TARGETS.meta_ads },
    mapping: { events: ['Purchase'], value: { mode: 'event' }, identifiers },
  });
  expect((await create(meta, toMeta(['dateOfBirth', 'gender']))).status).toBe(400);
  expect((await create(meta, toMeta(['externalId']))).status).toBe(200);
});

test("another organization's member gets 404 for a bad mapping on this conversion, not its field errors", async () => {
  const other = await setUpConversion('meta_ads');
  const refused = await call(s.item, {
    method: 'PATCH',
    token: other.owner.token,
    query: { orgId: microsoft.orgId, id: microsoft.conversionId },
    body: { mapping: { events: [], value: { mode: 'event' }, identifiers: ['email'] } },
  });
  expect(refused.status).toBe(404);
  expect(fieldErrorsOf(refused)).toBeUndefined();
});
