import { UserData } from 'facebook-nodejs-business-sdk';
import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import routing from '@/pages/api/orgs/[orgId]/apps/[id]/routing';
import type { DeliveryRow } from '@/lib/shared/conversions/conversion';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { rotateSubmissionKey } from '@/lib/server/repos/apps';
import { getConversion, routingConversionId } from '@/lib/server/repos/conversions';
import { updateConversion } from '@/lib/server/services/conversions';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { connectDestination, ownerWithShopApp, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { untilValue } from '@/tests/api/helpers/until';
import type { TestUser } from '@/tests/fixtures/firebase';
import { listDeliveries } from '@/lib/server/repos/deliveryLog';

// Issue 35 §3: an app routed to Meta on its routing page sends every identifier Meta takes — the
// address (ct, st, zp, country), date of birth, gender — hashed as Meta's business SDK hashes them;
// a routing saved with the old six identifiers sends them too.
jest.setTimeout(180_000);

let platforms: FakePlatforms;
let s: Record<'submissions' | 'routing', TestServer>;
let owner: TestUser;
let orgId: string;
let appId: string;
let key: string;
let conversionId: string;

const worker = workerProcesses({ DELIVERY_LINGER_MS: '500', DELIVERY_RETRY_BASE_MS: '100' });

/** The routing's list before identifiers were added to it (what older routing conversions still store). */
const OLD_SIX = ['email', 'phone', 'name', 'externalId', 'clickIds', 'context'];

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ submissions, routing }, { submissions: submissionsConfig });
  ({
    owner,
    orgId,
    app: { id: appId },
  } = await ownerWithShopApp());
  ({ key } = await rotateSubmissionKey(orgId, appId));
  const destinationId = await connectDestination(orgId, owner.uid, 'meta_ads');
  // The app's routing page: its Meta pixel.
  const routed = await call(s.routing, {
    method: 'PUT',
    query: { orgId, id: appId },
    token: owner.token,
    body: { platform: 'meta_ads', destinationId, ...SANDBOX_TARGETS.meta_ads },
  });
  expect(routed.status).toBe(200);
  conversionId = routingConversionId(appId, 'meta_ads');
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const PERSON = {
  email: 'jane@example.com',
  city: 'Mountain View',
  state: 'CA',
  postalCode: '94035',
  countryCode: 'US',
  dateOfBirth: '1990-01-15',
  gender: 'f',
  userAgent: 'Mozilla/5.0',
};

/** What Meta's business SDK sends for the same person: ct, st, zp, country, db, ge. */
function sdkUserData(): Record<string, string> {
  const normalized = new UserData()
    .setCity(PERSON.city)
    .setState(PERSON.state)
    .setZip(PERSON.postalCode)
    .setCountry(PERSON.countryCode)
    .setDateOfBirth('19900115')
    .setGender(PERSON.gender)
    .normalize() as Record<string, string[]>;
  return Object.fromEntries(Object.entries(normalized).map(([field, [hash]]) => [field, hash!]));
}

/** Posts one Lead of PERSON and waits for its row in the routing's delivery log. */
async function deliverLead(eventId: string): Promise<DeliveryRow> {
  const answer = await call(s.submissions, {
    method: 'POST',
    token: key,
    body: { events: [{ ...PERSON, event: 'Lead', eventId, occurredAt: new Date(Date.now() - 60_000).toISOString() }] },
  });
  expect(answer.status).toBe(202);
  return untilValue(
    async () => {
      const records = await listDeliveries(orgId, conversionId, { eventId });
      return records.flatMap((record) => record.rows).find((row) => row.id === eventId) ?? null;
    },
    (row) => row !== null,
    60_000,
    `${eventId} in the routing's log`,
  ) as Promise<DeliveryRow>;
}

const metaReceived = (eventId: string) =>
  platforms.conversions.list('meta').find((entry) => entry.key.includes(eventId))?.event.user_data as Record<string, unknown>;

test("a routing to Meta sends the address, date of birth and gender, hashed as Meta's SDK hashes them", async () => {
  worker();
  expect((await deliverLead('route-address')).status).toBe('delivered');
  const sent = metaReceived('route-address');
  const expected = sdkUserData();
  expect(Object.keys(expected)).toEqual(expect.arrayContaining(['ct', 'st', 'zp', 'country', 'db', 'ge']));
  expect(sent).toMatchObject(expected);
});

test('a routing stored with the old six identifiers sends the new ones too', async () => {
  await adminDb().doc(`organizations/${orgId}/conversions/${conversionId}`).update({ 'mapping.identifiers': OLD_SIX });
  worker();
  expect((await deliverLead('route-old-six')).status).toBe('delivered');
  expect(metaReceived('route-old-six')).toMatchObject(sdkUserData());
  expect((await getConversion(orgId, conversionId)).mapping.identifiers).toEqual(
    expect.arrayContaining(['address', 'dateOfBirth', 'gender']),
  );
});

test("identifiers picked on the routing's configuration page stand", async () => {
  const mapping = { events: [], value: { mode: 'event' as const }, identifiers: ['email' as const] };
  await updateConversion(orgId, 'growth', conversionId, { mapping });
  expect((await getConversion(orgId, conversionId)).mapping.identifiers).toEqual(['email']);
});
