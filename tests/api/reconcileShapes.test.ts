import { FieldValue } from 'firebase-admin/firestore';
import orgReconciliation from '@/pages/api/orgs/[orgId]/reconciliation';
import type { ReconciliationRow } from '@/lib/shared/conversions/reconciliation';
import { reconcileOrganization } from '@/lib/server/counted/reconcile';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { setUpConversion } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandler, type TestServer } from '@/tests/api/helpers/server';

// Issue 35 §4: the reading job of "Counted by the platform" met conversion documents it could not parse (one
// without `source`, one without a destination) and threw, skipping every conversion of the organization
// ("[reconcile] an organization could not be read … reading 'type'"). Each is now read or skipped with a reason.
let platforms: FakePlatforms;
let server: TestServer;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  server = await serveHandler(orgReconciliation, undefined, '/api/orgs/[orgId]/reconciliation');
});
afterAll(async () => {
  await closeAll({ server });
  await platforms.close();
});

test('odd conversion documents beside a normal one: the normal one is read, the odd ones are read or skipped with a reason', async () => {
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const setup = await setUpConversion('meta_ads');
  const conversions = adminDb().collection('organizations').doc(setup.orgId).collection('conversions');
  const normal = (await conversions.doc(setup.conversionId).get()).data()!;
  // Written before `source` existed: its destination is whole, so it is read.
  const older = Object.fromEntries(Object.entries(normal).filter(([field]) => !['source', 'source_key', 'app_id'].includes(field)));
  await conversions.doc('older').set({ ...older, name: 'Older leads' });
  // To Meta, but naming no account or pixel: skipped, and its summary says why.
  await conversions.doc('no-target').set({
    name: 'Half made',
    destination: { platform: 'meta_ads' },
    status: 'active',
    created_at: FieldValue.serverTimestamp(),
  });
  // No destination at all: nothing a platform could count.
  await conversions.doc('no-destination').set({ name: 'Nowhere', status: 'active', created_at: FieldValue.serverTimestamp() });

  const result = await reconcileOrganization(setup.orgId);
  expect(result.conversions).toBe(2);
  expect(result.skipped).toEqual([{ id: 'no-target', reason: expect.stringMatching(/no Meta Ads login, account or pixel/) }]);

  const response = await call(server, { path: `/api/orgs/${setup.orgId}/reconciliation`, token: setup.owner.token });
  expect(response.status).toBe(200);
  const rows = response.body.conversions as unknown as ReconciliationRow[];
  const stateOf = (id: string) => rows.find((row) => row.id === id)?.summary;
  expect(stateOf(setup.conversionId)).toMatchObject({ state: 'read', message: null });
  expect(stateOf('older')).toMatchObject({ state: 'read' });
  expect(stateOf('no-target')).toMatchObject({ state: 'failed', message: expect.stringMatching(/pick its destination again/) });
  expect(stateOf('no-destination')).toBeUndefined();
});
