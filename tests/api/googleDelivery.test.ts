import { createHash, randomUUID } from 'node:crypto';
import { googleAds } from '@/lib/server/connectors/google_ads';
import { toDataManagerEvent } from '@/lib/server/connectors/google_ads/delivery';
import { googleAdsError } from '@/lib/server/connectors/google_ads/errors';
import { googleOAuth } from '@/lib/server/connectors/google/oauth';
import type { Session } from '@/lib/server/connectors/types';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';
import { spyOnLog } from '@/tests/fixtures/logSpy';

// Conversions to Google Ads through the Data Manager API, against the sandbox's events:ingest, which
// checks each request against the official protos of @google-ads/datamanager.
const APP_URL = 'http://localhost:3999';
const RETURN_TO = `${APP_URL}/addConversionDestination`;
const DIRECT: AdAccount = { id: '5556667778', name: 'Sandbox Direct Store', managerId: null };
const CLIENT: AdAccount = { id: '1234567890', name: 'Acme Shoes', managerId: '1112223334' };
const PURCHASE = { id: '9001', name: 'Purchase' };

let platforms: FakePlatforms;
let session: Session;
let ingestUrl: string;

const deliver = () => googleAds.deliver!;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);

function conversion(id: string, overrides: Partial<ConversionEvent> = {}): ConversionEvent {
  return {
    id,
    name: 'Purchase',
    time: nowSeconds() - 3600,
    value: 49.9,
    currency: 'USD',
    user: { email: sha256(`${id}@example.com`), phone: sha256('+15551234567') },
    clickIds: { gclid: `Cj0KCQ-${id}` },
    context: { actionSource: 'website', ip: '203.0.113.7', userAgent: 'Mozilla/5.0' },
    ...overrides,
  };
}

const batch = (size: number, prefix = randomUUID().slice(0, 8)) =>
  Array.from({ length: size }, (_, index) => conversion(`${prefix}-${index}`));

/** What the sandbox recorded for a destination, by transaction id. */
const received = (account: AdAccount, actionId: string) =>
  platforms.conversions.list('google').filter((entry) => entry.key.startsWith(`${account.id}/${actionId}|`));

/** A Google login through the sandbox's consent page, with the scopes of `auth`. */
async function login(auth = googleAds.auth.oauth!) {
  const returned = await consentTo(auth.authorizeUrl('state-google-delivery', RETURN_TO));
  const connection = await auth.exchangeCode(returned.searchParams.get('code')!, RETURN_TO);
  return googleAds.openSession(connection.credential);
}

/** A raw ingest request, for what our connector never sends. */
async function ingest(body: unknown, accessToken = session.accessToken) {
  const response = await fetch(ingestUrl, {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const rawRequest = (event: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  destinations: [{ operatingAccount: { accountType: 'GOOGLE_ADS', accountId: DIRECT.id }, productDestinationId: PURCHASE.id }],
  events: [event],
  encoding: 'HEX',
  ...extra,
});

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  ingestUrl = `${process.env.GOOGLE_DATA_MANAGER_API_URL}/events:ingest`;
  session = await login();
});
afterAll(async () => {
  await platforms.close();
});
afterEach(() => {
  platforms.conversions.failures.delete('google');
});

test('2,000 conversions in one call all arrive; sent again they are deduplicated on the transaction id', async () => {
  const events = batch(2000);
  const callsBefore = platforms.conversions.calls('google');
  const outcomes = await deliver().send(session, DIRECT, PURCHASE, events);
  expect(outcomes).toHaveLength(2000);
  expect(outcomes.every((outcome) => outcome.status === 'delivered')).toBe(true);
  expect(platforms.conversions.calls('google')).toBe(callsBefore + 1);
  const ids = new Set(events.map((event) => event.id));
  const arrived = received(DIRECT, PURCHASE.id).filter((entry) => ids.has(entry.key.split('|')[1]!));
  expect(arrived).toHaveLength(2000);
  expect(arrived[0]!.target).toBe(PURCHASE.id);
  expect(arrived[0]!.event).toMatchObject({
    transactionId: expect.any(String),
    adIdentifiers: { gclid: expect.any(String) },
    eventSource: 'WEB',
  });

  await deliver().send(session, DIRECT, PURCHASE, events);
  const again = received(DIRECT, PURCHASE.id).filter((entry) => ids.has(entry.key.split('|')[1]!));
  expect(again).toHaveLength(2000);
  expect(again.every((entry) => entry.receipts === 2)).toBe(true);
});

test('2,001 conversions are refused as a whole, and nothing of them is recorded', async () => {
  const before = platforms.conversions.list('google').length;
  const error = await refusal(deliver().send(session, DIRECT, PURCHASE, batch(2001)));
  expect(error.code).toBe('invalid');
  expect(error.message).toContain('TOO_MANY_EVENTS');
  expect(platforms.conversions.list('google')).toHaveLength(before);
});

test('a client account is operated through its manager as loginAccount, and refused without it', async () => {
  const events = batch(3);
  await expect(deliver().send(session, CLIENT, PURCHASE, events)).resolves.toHaveLength(3);
  expect(received(CLIENT, PURCHASE.id).filter((entry) => events.some((event) => entry.key.endsWith(`|${event.id}`)))).toHaveLength(3);

  const withoutManager = await refusal(deliver().send(session, { ...CLIENT, managerId: null }, PURCHASE, batch(3)));
  expect(withoutManager.code).toBe('forbidden');
  expect(withoutManager.message).toContain('PERMISSION_DENIED');
  // A manager that does not manage the account does not help either.
  const otherManager = await refusal(deliver().send(session, { ...DIRECT, managerId: '1112223334' }, PURCHASE, batch(1)));
  expect(otherManager.code).toBe('forbidden');
});

test.each([
  ['an unknown', { id: '9999', name: 'Unknown' }],
  ['a removed', { id: '9003', name: 'Old checkout (removed)' }],
])('%s conversion action is refused for the whole request', async (_, target) => {
  const before = platforms.conversions.list('google').length;
  const error = await refusal(deliver().send(session, DIRECT, target, batch(5)));
  // Splitting the batch cannot help when the destination itself is refused.
  expect(error.code).toBe('forbidden');
  expect(error.message).toContain('destinations[0].product_destination_id');
  expect(error.message).toContain('INVALID_CONVERSION_ACTION_ID');
  expect(platforms.conversions.list('google')).toHaveLength(before);
});

test('one stale conversion sinks the whole request, and Google names it', async () => {
  const events = batch(10);
  events[3] = { ...events[3]!, time: nowSeconds() - 91 * 24 * 3600 };
  const before = platforms.conversions.list('google').length;
  const error = await refusal(deliver().send(session, DIRECT, PURCHASE, events));
  expect(error.code).toBe('invalid');
  expect(error.message).toContain('events[3].event_timestamp');
  expect(error.message).toContain('EVENT_TIME_INVALID');
  expect(platforms.conversions.list('google')).toHaveLength(before);
  // Without it, the other nine go through.
  await expect(
    deliver().send(
      session,
      DIRECT,
      PURCHASE,
      events.filter((_, index) => index !== 3),
    ),
  ).resolves.toHaveLength(9);
});

test('an email that is not SHA-256 hex is refused', async () => {
  const events = batch(2);
  events[1] = { ...events[1]!, user: { email: 'jane.doe@example.com' } };
  const error = await refusal(deliver().send(session, DIRECT, PURCHASE, events));
  expect(error.code).toBe('invalid');
  expect(error.message).toContain('events[1].user_data.user_identifiers[0].email_address');
  expect(error.message).toContain('INVALID_HEX_ENCODING');
});

test('the request is read against the official protos: unknown fields and wrong types are refused', async () => {
  const event = toDataManagerEvent(conversion(randomUUID()), new Date());
  const unknownField = await ingest(rawRequest({ ...event, eventTime: '2026-01-01T00:00:00Z' }));
  expect(unknownField.status).toBe(400);
  expect(JSON.stringify(unknownField.body)).toContain('Unknown name \\"eventTime\\" at \'events[0]\': Cannot find field.');
  expect(googleAdsError(unknownField.status, unknownField.body).code).toBe('invalid');

  const nestedUnknown = await ingest(rawRequest({ ...event, adIdentifiers: { gclid: 'x', clickId: 'y' } }));
  expect(nestedUnknown.status).toBe(400);
  expect(JSON.stringify(nestedUnknown.body)).toContain('events[0].ad_identifiers');

  const wrongType = await ingest(rawRequest({ ...event, conversionValue: 'ten dollars' }));
  expect(wrongType.status).toBe(400);
  expect(JSON.stringify(wrongType.body)).toContain("Invalid value at 'events[0].conversion_value' (TYPE_DOUBLE)");

  const badEnum = await ingest(rawRequest(event, { encoding: 'HEXADECIMAL' }));
  expect(badEnum.status).toBe(400);
  expect(JSON.stringify(badEnum.body)).toContain('google.ads.datamanager.v1.Encoding');

  const badTimestamp = await ingest(rawRequest({ ...event, eventTimestamp: '2026-01-01 10:00' }));
  expect(badTimestamp.status).toBe(400);

  const twoIdentifiersInOne = await ingest(
    rawRequest({ ...event, userData: { userIdentifiers: [{ emailAddress: sha256('a'), phoneNumber: sha256('b') }] } }),
  );
  expect(twoIdentifiersInOne.status).toBe(400);
  expect(JSON.stringify(twoIdentifiersInOne.body)).toContain("Oneof field 'identifier' is already set");

  // An address needs its region and postal code (REQUIRED in user_data.proto).
  const nameOnly = await ingest(
    rawRequest({ ...event, userData: { userIdentifiers: [{ address: { givenName: sha256('jane'), familyName: sha256('doe') } }] } }),
  );
  expect(nameOnly.status).toBe(400);
  expect(JSON.stringify(nameOnly.body)).toContain('events[0].user_data.user_identifiers[0].address.region_code');

  // The same request, well formed, passes; proto names are accepted as JSON names too.
  const wellFormed = await ingest(rawRequest(event));
  expect(wellFormed).toEqual({ status: 200, body: { requestId: expect.any(String) } });
  const snakeCase = await ingest({
    ...rawRequest({ ...event, transactionId: undefined, transaction_id: `${randomUUID()}` }),
    validate_only: true,
  });
  expect(snakeCase.status).toBe(200);
});

test('a missing transaction id, event source or identifier is refused', async () => {
  const event = toDataManagerEvent(conversion(randomUUID()), new Date());
  const without = (value: Record<string, unknown>, ...keys: string[]) =>
    Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
  expect(JSON.stringify((await ingest(rawRequest(without(event, 'transactionId')))).body)).toContain('events[0].transaction_id');
  expect(JSON.stringify((await ingest(rawRequest(without(event, 'eventSource')))).body)).toContain('events[0].event_source');
  expect(JSON.stringify((await ingest(rawRequest(without(event, 'adIdentifiers', 'userData')))).body)).toContain('NO_IDENTIFIERS_PROVIDED');
  expect(JSON.stringify((await ingest(without(rawRequest(event), 'encoding'))).body)).toContain('"field":"encoding"');
});

test('a test send is validated only: nothing is recorded or counted', async () => {
  const before = platforms.conversions.list('google').length;
  const calls = platforms.conversions.calls('google');
  const outcomes = await deliver().send(session, DIRECT, PURCHASE, batch(4), { testCode: 'TEST123' });
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
  expect(platforms.conversions.list('google')).toHaveLength(before);
  expect(platforms.conversions.calls('google')).toBe(calls);
  // Validation still refuses what a real send would.
  const stale = conversion(randomUUID(), { time: nowSeconds() - 100 * 24 * 3600 });
  expect((await refusal(deliver().send(session, DIRECT, PURCHASE, [stale], { testCode: 'TEST123' }))).code).toBe('invalid');
});

test('while Google fails, sends are retryable; while it throttles, rate limited', async () => {
  const logged = spyOnLog();
  platforms.conversions.fail('google', { status: 500, seconds: 5 });
  const down = await refusal(deliver().send(session, DIRECT, PURCHASE, batch(2)));
  expect(down.code).toBe('retryable');
  platforms.conversions.fail('google', { status: 429, seconds: 5 });
  const throttled = await refusal(deliver().send(session, DIRECT, PURCHASE, batch(2)));
  expect(throttled.code).toBe('rate_limited');
  platforms.conversions.failures.delete('google');
  await expect(deliver().send(session, DIRECT, PURCHASE, batch(2))).resolves.toHaveLength(2);
  expect(logged.entries).toContainEqual({
    level: 'warn',
    // Google's codes, never its words (they may quote what was sent).
    fields: { component: 'platforms', platform: 'google_ads', status: 500, codes: expect.arrayContaining(['INTERNAL']), is: 'retryable' },
    message: 'A platform refused a request',
  });
  logged.mockRestore();
});

test('a login without the datamanager scope must be connected again', async () => {
  const adwordsOnly = await login(googleOAuth('google_ads', ['https://www.googleapis.com/auth/adwords']));
  const error = await refusal(deliver().send(adwordsOnly, DIRECT, PURCHASE, batch(1)));
  expect(error.code).toBe('needs_reauth');
  const raw = await ingest(rawRequest(toDataManagerEvent(conversion(randomUUID()), new Date())), adwordsOnly.accessToken);
  expect(raw.status).toBe(403);
  expect(JSON.stringify(raw.body)).toContain('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
});

test('check() holds back what Google would refuse', () => {
  const now = new Date();
  const at = (secondsAgo: number) => conversion('c', { time: nowSeconds() - secondsAgo });
  expect(deliver().check(at(3600), now)).toBeNull();
  expect(deliver().check(at(89 * 24 * 3600), now)).toBeNull();
  expect(deliver().check(at(91 * 24 * 3600), now)).toMatch(/90 days/);
  expect(deliver().check(at(-3600), now)).toMatch(/future/);
  expect(deliver().check(conversion('c', { clickIds: {}, user: {} }), now)).toMatch(/No identifier/);
  // Names alone do not match: an address identifier also needs a region and a postal code.
  expect(deliver().check(conversion('c', { clickIds: {}, user: { firstName: sha256('jane'), lastName: sha256('doe') } }), now)).toMatch(
    /No identifier/,
  );
  expect(deliver().check(conversion('c', { clickIds: {}, user: { phoneE164: sha256('+15551234567') } }), now)).toBeNull();
  expect(deliver().check(conversion('c', { clickIds: { wbraid: 'w1' }, user: {} }), now)).toBeNull();
});

test('a revoked login needs reconnecting', async () => {
  platforms.revokeAll('google');
  const error = await refusal(deliver().send(session, DIRECT, PURCHASE, batch(1)));
  expect(error.code).toBe('needs_reauth');
});
