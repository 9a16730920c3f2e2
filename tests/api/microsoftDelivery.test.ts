import { createHash, randomBytes } from 'node:crypto';
import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import type { AdAccount, ConversionTarget } from '@/lib/shared/integrations/platforms';
import { PlatformError } from '@/lib/server/connectors/errors';
import { microsoftAds } from '@/lib/server/connectors/microsoft_ads';
import type { Delivery, Session } from '@/lib/server/connectors/types';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';

// Conversions to Microsoft Advertising offline conversions, through the connector, against the sandbox.
const APP_URL = 'http://localhost:3999';
const REDIRECT_URI = `${APP_URL}/addConversionDestination`;
const DAY = 24 * 3600;

let platforms: FakePlatforms;
let session: Session;
let account: AdAccount;
let goal: ConversionTarget;
const deliver = microsoftAds.deliver as Delivery;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);
let serial = 0;

/** A valid event: a fresh msclkid (32 hex), an hour old, with a value and a hashed email. */
function event(overrides: Partial<ConversionEvent> = {}): ConversionEvent {
  serial += 1;
  return conversionEventSchema.parse({
    id: `evt-${serial}`,
    name: 'Purchase',
    time: nowSeconds() - 3600,
    value: 42.5,
    currency: 'USD',
    user: { email: sha256(`buyer${serial}@example.com`) },
    clickIds: { msclkid: randomBytes(16).toString('hex') },
    context: { actionSource: 'system_generated' },
    ...overrides,
  });
}
const events = (count: number) => Array.from({ length: count }, () => event());

async function login(): Promise<Session> {
  const oauth = microsoftAds.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('state-microsoft-delivery', REDIRECT_URI));
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  return microsoftAds.openSession(connection.credential);
}

const received = () => platforms.conversions.list('microsoft');
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the request to be refused');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(PlatformError);
      return error as PlatformError;
    },
  );

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  session = await login();
  [account] = (await microsoftAds.listAccounts(session)) as [AdAccount];
  expect(account.managerId).toBeTruthy();
  goal = (await microsoftAds.listTargets(session, account)).find((target) => target.name === 'Offline purchase')!;
  expect(goal).toEqual({ id: '8001', name: 'Offline purchase' });
});
afterAll(() => platforms.close());
let logged: jest.SpyInstance;
beforeEach(() => {
  platforms.conversions.reset();
  // Refusals are logged by the connector; these tests provoke them on purpose.
  logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => logged.mockRestore());

test('1,000 conversions go in one call, each recorded under account, goal name, click id and time', async () => {
  expect(deliver.maxBatch).toBe(1000);
  const batch = events(1000);
  const outcomes = await deliver.send(session, account, goal, batch);
  expect(outcomes).toEqual(batch.map((sent) => ({ id: sent.id, status: 'delivered', exchange: expect.any(Object) })));
  // Each row's exchange (the log's debugger): the OfflineConversion as sent, and no PartialErrors for it.
  expect(outcomes[0]!.exchange).toEqual({
    sent: expect.objectContaining({ MicrosoftClickId: batch[0]!.clickIds.msclkid, ConversionName: goal.name }),
    answer: { PartialErrors: [] },
  });
  expect(platforms.conversions.calls('microsoft')).toBe(1);
  expect(received()).toHaveLength(1000);

  const first = batch[0]!;
  const time = new Date(first.time * 1000).toISOString();
  const entry = received().find((row) => row.key === `${account.id}|Offline purchase|${first.clickIds.msclkid}|${time}`);
  expect(entry).toMatchObject({
    target: 'Offline purchase',
    receipts: 1,
    event: {
      MicrosoftClickId: first.clickIds.msclkid,
      ConversionName: 'Offline purchase',
      ConversionTime: time,
      ConversionValue: 42.5,
      ConversionCurrencyCode: 'USD',
      HashedEmailAddress: first.user.email,
    },
  });
});

test('sending the same conversions again is accepted and counted once (Microsoft dedups click id + time)', async () => {
  const batch = events(5);
  await deliver.send(session, account, goal, batch);
  const again = await deliver.send(session, account, goal, batch);
  expect(again.every((outcome) => outcome.status === 'delivered')).toBe(true);
  expect(received()).toHaveLength(5);
  expect(received().map((row) => row.receipts)).toEqual([2, 2, 2, 2, 2]);
  expect(platforms.conversions.calls('microsoft')).toBe(2);
});

test('1,001 conversions are refused as a whole: invalid, nothing recorded', async () => {
  const error = await refusal(deliver.send(session, account, goal, events(1001)));
  expect(error.code).toBe('invalid');
  expect(error.message).toContain('exceeds the limit');
  expect(received()).toHaveLength(0);
  expect(platforms.conversions.calls('microsoft')).toBe(0);
});

test('a bad click id and a too-old time are rejected with reasons; the other rows are delivered and recorded', async () => {
  const batch = events(10);
  batch[3] = event({ clickIds: { msclkid: 'not-a-click-id' } });
  batch[7] = event({ time: nowSeconds() - 100 * DAY });
  const outcomes = await deliver.send(session, account, goal, batch);

  expect(outcomes.map((outcome) => outcome.id)).toEqual(batch.map((sent) => sent.id));
  expect(outcomes[3]).toEqual({
    id: batch[3]!.id,
    status: 'rejected',
    reason: expect.stringMatching(/does not recognise this click id.*Microsoft said: The Microsoft click ID is invalid/),
    // Microsoft's own answer for this row: the PartialErrors naming its index.
    exchange: {
      sent: expect.objectContaining({ MicrosoftClickId: 'not-a-click-id' }),
      answer: { PartialErrors: [expect.objectContaining({ Index: 3 })] },
    },
  });
  expect(outcomes[7]).toMatchObject({
    id: batch[7]!.id,
    status: 'rejected',
    reason: expect.stringMatching(/^Older than 90 days.*Microsoft said: .*90-day/),
  });
  expect(outcomes.filter((outcome) => outcome.status === 'delivered')).toHaveLength(8);
  expect(received()).toHaveLength(8);
  const recordedClicks = new Set(received().map((row) => row.event.MicrosoftClickId));
  expect(recordedClicks.has('not-a-click-id')).toBe(false);
  expect(recordedClicks.has(batch[7]!.clickIds.msclkid)).toBe(false);
  expect(recordedClicks.has(batch[0]!.clickIds.msclkid)).toBe(true);
});

test('a future time, an unhashed email and a bad currency are refused per row too', async () => {
  // The schema refuses an unhashed email and a lowercase currency: these are built past it, as a broken caller might.
  const batch = [
    event({ time: nowSeconds() + 3600 }),
    { ...event(), user: { email: 'buyer@example.com' } },
    event(),
    { ...event(), currency: 'usd' },
  ];
  const outcomes = await deliver.send(session, account, goal, batch);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'delivered', 'rejected']);
  expect(outcomes[0]).toMatchObject({ reason: expect.stringMatching(/in the future/) });
  expect(outcomes[1]).toMatchObject({ reason: expect.stringMatching(/email address was not hashed/) });
  expect(outcomes[3]).toMatchObject({ reason: expect.stringMatching(/currency code/) });
  expect(received()).toHaveLength(1);
});

test('a goal name the account does not have: every row rejected, nothing recorded', async () => {
  const outcomes = await deliver.send(session, account, { id: '9999', name: 'No such goal' }, events(3));
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect(outcomes[0]).toMatchObject({ reason: expect.stringMatching(/no active offline conversion goal of this name/) });
  expect(received()).toHaveLength(0);
});

test('an account the login cannot reach is forbidden', async () => {
  const error = await refusal(deliver.send(session, { id: '999999', name: 'Someone else', managerId: '9001' }, goal, events(1)));
  expect(error.code).toBe('forbidden');
  expect(received()).toHaveLength(0);
});

test('a wrong developer token is refused (Microsoft answers 105 InvalidCredentials), nothing recorded', async () => {
  const developerToken = process.env.MICROSOFT_ADS_DEVELOPER_TOKEN;
  process.env.MICROSOFT_ADS_DEVELOPER_TOKEN = 'NOT-OUR-TOKEN';
  try {
    const error = await refusal(deliver.send(session, account, goal, events(2)));
    expect(error.code).toBe('needs_reauth');
  } finally {
    process.env.MICROSOFT_ADS_DEVELOPER_TOKEN = developerToken;
  }
  expect(received()).toHaveLength(0);
  expect(platforms.conversions.calls('microsoft')).toBe(0);
});

test.each([
  [500, 'retryable'],
  [503, 'retryable'],
  [429, 'rate_limited'],
] as const)('while Microsoft fails with %i the whole request is %s, and nothing is recorded', async (status, code) => {
  platforms.conversions.fail('microsoft', { status, seconds: 5 });
  const error = await refusal(deliver.send(session, account, goal, events(3)));
  expect(error.code).toBe(code);
  expect(received()).toHaveLength(0);
  platforms.conversions.reset();
  expect((await deliver.send(session, account, goal, events(1)))[0]!.status).toBe('delivered');
});

test('a test run sends nothing: Microsoft has no test mode', async () => {
  const batch = [event(), event({ clickIds: {} })];
  const outcomes = await deliver.send(session, account, goal, batch, { testCode: 'TEST123' });
  expect(outcomes).toEqual([
    { id: batch[0]!.id, status: 'not_sent', reason: expect.stringMatching(/no test mode/) },
    { id: batch[1]!.id, status: 'not_sent', reason: expect.stringMatching(/^No Microsoft click id/) },
  ]);
  expect(platforms.conversions.calls('microsoft')).toBe(0);
});

test('check() holds back what Microsoft would refuse: no msclkid, older than 90 days, in the future', () => {
  const now = new Date();
  const at = (secondsAgo: number) => Math.floor(now.getTime() / 1000) - secondsAgo;
  expect(deliver.check(event({ time: at(3600) }), now)).toBeNull();
  expect(deliver.check(event({ time: at(89 * DAY) }), now)).toBeNull();
  expect(deliver.check(event({ clickIds: { gclid: 'abc' } }), now)).toBe(
    'No Microsoft click id (msclkid): Microsoft matches offline conversions by click',
  );
  expect(deliver.check(event({ time: at(91 * DAY) }), now)).toMatch(/^Older than 90 days/);
  expect(deliver.check(event({ time: at(-600) }), now)).toMatch(/in the future/);
});

// Last: it kills every Microsoft login of the sandbox.
test('a revoked login: the request is refused as needs_reauth', async () => {
  platforms.revokeAll('microsoft');
  const error = await refusal(deliver.send(session, account, goal, events(2)));
  expect(error.code).toBe('needs_reauth');
  expect(received()).toHaveLength(0);
  await expect(microsoftAds.openSession({ type: 'microsoft', refreshToken: 'M.C5_gone' })).rejects.toMatchObject({ code: 'needs_reauth' });
});
