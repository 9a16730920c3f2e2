import { createHash } from 'node:crypto';
import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import type { AdRow } from '@/lib/shared/connections/rows';
import type { AdAccount } from '@/lib/shared/integrations/platforms';
import { PlatformError } from '@/lib/server/connectors/errors';
import { linkedinAds, type LinkedInCredential } from '@/lib/server/connectors/linkedin_ads';
import { LINKEDIN_ADS_VERSION } from '@/lib/server/connectors/linkedin_ads/version';
import type { CountedRow, Delivery, Report, Session } from '@/lib/server/connectors/types';
import { KNOWN_PEOPLE } from '@/sandbox/people';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';

// LinkedIn through the connector against the sandbox: the consent and refresh grants, the ad accounts and
// conversion rules, adAnalytics read within its 15,000 elements, conversions batch-created and counted.
const APP_URL = 'http://localhost:3999';
const REDIRECT_URI = `${APP_URL}/addSource`;
const DAY_MS = 86_400_000;
const SANDBOX_ACCOUNT = { id: '510001', name: 'Acme Shoes (LinkedIn)', currency: 'USD', timeZone: 'UTC' };

let platforms: FakePlatforms;
let credential: LinkedInCredential;
let session: Session;
let account: AdAccount;
const report = linkedinAds.report as Report;
const deliver = linkedinAds.deliver as Delivery;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);
let serial = 0;

function event(overrides: Partial<ConversionEvent> = {}): ConversionEvent {
  serial += 1;
  return conversionEventSchema.parse({
    id: `li-evt-${serial}`,
    name: 'Purchase',
    time: Math.floor(Date.now() / 1000) - 3600,
    value: 42.5,
    currency: 'USD',
    user: { email: sha256(KNOWN_PEOPLE[serial % 50]!.email.trim().toLowerCase()) },
    clickIds: {},
    context: { actionSource: 'system_generated' },
    ...overrides,
  });
}

async function read(request: { level: 'campaign' | 'ad_group' | 'ad'; from: string; to: string; onCall?: () => void }) {
  const rows: AdRow[] = [];
  for await (const page of report(session, { account, ...request })) rows.push(...page);
  return rows;
}
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(PlatformError);
      return error as PlatformError;
    },
  );
/** A raw Marketing API call, with the headers given (none of the pinned ones unless passed). */
const raw = (path: string, headers: Record<string, string>) =>
  fetch(`${process.env.LINKEDIN_API_URL}/rest/${path}`, { headers: { Authorization: `Bearer ${session.accessToken}`, ...headers } });

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
  const oauth = linkedinAds.auth.oauth!;
  const consent = new URL(oauth.authorizeUrl('state-linkedin', REDIRECT_URI));
  expect(consent.searchParams.get('scope')).toBe('r_ads r_ads_reporting rw_conversions');
  const returned = await consentTo(consent.toString());
  expect(returned.searchParams.get('state')).toBe('state-linkedin');
  const connection = await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI);
  expect(connection.accountName).toBe('Acme Shoes (LinkedIn)');
  credential = connection.credential;
  session = await linkedinAds.openSession(credential);
  account = (await linkedinAds.listAccounts(session)).find((candidate) => candidate.id === SANDBOX_ACCOUNT.id)!;
});
afterAll(() => platforms.close());
beforeEach(() => {
  platforms.adData.reset();
  platforms.conversions.reset();
});

test('the consent connects the member: accounts with currencies, and only the rules that take Conversions API events', async () => {
  expect(await linkedinAds.listAccounts(session)).toEqual([
    { id: '510001', name: 'Acme Shoes (LinkedIn)', currency: 'USD' },
    { id: '510002', name: 'Acme Outlet (LinkedIn)', currency: 'EUR' },
  ]);
  expect(await linkedinAds.listTargets(session, account)).toEqual([
    { id: '17001', name: 'Purchase' },
    { id: '17002', name: 'Demo request' },
  ]);
  // A refresh keeps the same refresh token (LinkedIn does not rotate it) and counts as one refresh of the login.
  const again = await linkedinAds.openSession(credential);
  expect(again.rotated).toBeNull();
  expect(again.expiresAt).toBeGreaterThan(Date.now() + 59 * DAY_MS);
});

test('a dead login needs a new consent', async () => {
  platforms.revokeAll('linkedin');
  const error = await refusal(linkedinAds.openSession(credential));
  expect(error.code).toBe('needs_reauth');
  // Connect again for the tests after this one.
  const oauth = linkedinAds.auth.oauth!;
  const returned = await consentTo(oauth.authorizeUrl('state-again', REDIRECT_URI));
  credential = (await oauth.exchangeCode(returned.searchParams.get('code')!, REDIRECT_URI)).credential;
  session = await linkedinAds.openSession(credential);
});

test('an ad-level report gives exactly the sandbox figures, in UTC days, with names from the account lists', async () => {
  const from = daysAgo(6);
  const to = today();
  let calls = 0;
  const rows = await read({ level: 'ad', from, to, onCall: () => (calls += 1) });
  const expected = [...platforms.adData.rowsOf('linkedin', SANDBOX_ACCOUNT, 'ad', from, to)];
  expect(rows).toHaveLength(expected.length);
  expect(rows.length).toBe(7 * 12);
  // Campaign groups, campaigns, creatives, then one adAnalytics request.
  expect(calls).toBe(4);
  const byKey = new Map(rows.map((row) => [`${row.date}/${row.ad_id}`, row]));
  for (const facts of expected) {
    expect(byKey.get(`${facts.date}/${facts.adId}`)).toEqual({
      date: facts.date,
      platform: 'linkedin_ads',
      account_id: '510001',
      account_name: 'Acme Shoes (LinkedIn)',
      currency: 'USD',
      time_zone: 'UTC',
      campaign_id: facts.campaignId,
      campaign_name: facts.campaignName,
      ad_group_id: facts.adGroupId,
      ad_group_name: facts.adGroupName,
      ad_id: facts.adId,
      ad_name: facts.adName,
      impressions: facts.impressions,
      clicks: facts.clicks,
      spend: facts.spendMicros / 1e6,
      conversions: facts.conversions,
      conversion_value: facts.valueMicros / 1e6,
    });
  }
});

test('a window whose answer would pass 15,000 elements is read in several requests, each inside the limit', async () => {
  // 100 campaigns × 2 campaigns each × 2 creatives: 400 creatives a day, so 37 days a request at most.
  platforms.adData.configure({ campaigns: 100 });
  const from = daysAgo(89);
  const to = daysAgo(0);
  let calls = 0;
  const rows = await read({ level: 'ad', from, to, onCall: () => (calls += 1) });
  expect(rows).toHaveLength(90 * 400);
  expect(calls).toBe(3 + Math.ceil(90 / Math.floor(15_000 / 400)));
  // The same window in one request is refused by the fake, as LinkedIn keeps to its limit.
  const query = (await import('@/lib/server/connectors/linkedin_ads/report')).analyticsQuery('510001', 'ad', from, to);
  const answer = await raw(`adAnalytics?${query}`, {
    'LinkedIn-Version': LINKEDIN_ADS_VERSION.version,
    'X-Restli-Protocol-Version': '2.0.0',
  });
  expect(answer.status).toBe(400);
  expect(((await answer.json()) as { message: string }).message).toMatch(/more than the 15000/);
});

test('a call without LinkedIn-Version, with a retired one or without Rest.li 2.0 is refused as LinkedIn refuses it', async () => {
  const missing = await raw('adAccounts?q=search', { 'X-Restli-Protocol-Version': '2.0.0' });
  expect(missing.status).toBe(400);
  expect(await missing.json()).toMatchObject({ status: 400, code: 'VERSION_MISSING' });
  const retired = await raw('adAccounts?q=search', { 'LinkedIn-Version': '202511', 'X-Restli-Protocol-Version': '2.0.0' });
  expect(retired.status).toBe(426);
  expect(await retired.json()).toEqual({ status: 426, code: 'NONEXISTENT_VERSION', message: 'Requested version 202511 is not active' });
  const noRestli = await raw('adAccounts?q=search', { 'LinkedIn-Version': LINKEDIN_ADS_VERSION.version });
  expect(noRestli.status).toBe(400);
  const pinned = await raw('adAccounts?q=search', {
    'LinkedIn-Version': LINKEDIN_ADS_VERSION.version,
    'X-Restli-Protocol-Version': '2.0.0',
  });
  expect(pinned.status).toBe(200);
});

test('conversions are batch-created per element: an event older than 90 days is refused alone, the rest recorded and matched', async () => {
  const target = { id: '17001', name: 'Purchase' };
  const good = [event(), event({ clickIds: { li_fat_id: 'li-fat-abc' } } as Partial<ConversionEvent>)];
  const old = event({ time: Math.floor(Date.now() / 1000) - 91 * 24 * 3600 });
  // check() stops the old one before it is sent; sent anyway, LinkedIn refuses it alone.
  expect(deliver.check(old, new Date())).toMatch(/90 days/);
  const outcomes = await deliver.send(session, account, target, [...good, old]);
  expect(outcomes.map((outcome) => outcome.status)).toEqual(['delivered', 'delivered', 'rejected']);
  expect(outcomes[2]).toMatchObject({ reason: expect.stringMatching(/within the past 90 days/) });
  const received = platforms.conversions.list('linkedin');
  expect(received).toHaveLength(2);
  expect(received[1]!.event).toMatchObject({
    conversion: 'urn:lla:llaPartnerConversion:17001',
    eventId: good[1]!.id,
    conversionValue: { currencyCode: 'USD', amount: '42.5' },
    user: {
      userIds: [
        { idType: 'SHA256_EMAIL', idValue: good[1]!.user.email },
        { idType: 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID', idValue: 'li-fat-abc' },
      ],
    },
  });
  expect(platforms.conversions.calls('linkedin')).toBe(1);
  // The same events again are created again and counted once (rule + eventId).
  await deliver.send(session, account, target, good);
  expect(platforms.conversions.list('linkedin').map((entry) => entry.receipts)).toEqual([2, 2]);
  // Counted: adAnalytics by CONVERSION shows both once its lag has passed.
  platforms.reporting.clock.set(Date.now() + 4 * 3600 * 1000);
  const counted = (await linkedinAds.counted!(session, {
    account,
    targets: [{ ...target, events: [] }],
    from: daysAgo(1),
    to: today(),
  })) as CountedRow[];
  expect(counted).toEqual([{ targetId: '17001', events: null, date: today(), received: null, attributed: 2 }]);
  platforms.reporting.reset();
});

test('a throttled or failing Conversions API refuses the whole request, classified', async () => {
  platforms.conversions.fail('linkedin', { status: 429, seconds: 5 });
  expect((await refusal(deliver.send(session, account, { id: '17001', name: 'Purchase' }, [event()]))).code).toBe('rate_limited');
  platforms.conversions.fail('linkedin', { status: 503, seconds: 5 });
  expect((await refusal(deliver.send(session, account, { id: '17001', name: 'Purchase' }, [event()]))).code).toBe('retryable');
  platforms.conversions.reset();
  expect(platforms.conversions.list('linkedin')).toEqual([]);
});
