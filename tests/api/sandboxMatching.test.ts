import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import { createApp, rotateSubmissionKey } from '@/lib/server/repos/apps';
import { createConversion } from '@/lib/server/services/conversions';
import type { ConversionMapping } from '@/lib/shared/conversions/conversion';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import type { MatchPlatform } from '@/sandbox/matching';
import { KNOWN_PEOPLE } from '@/sandbox/people';
import { type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser } from '@/tests/fixtures/firebase';
import { connectDestination, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { until } from '@/tests/api/helpers/until';

// 100 of the sandbox's known people, in the spellings people type, posted to POST /api/submissions
// and delivered by the worker to Meta, Google and Microsoft: each platform must match every one of
// them by its own documented form (sandbox/matching.ts). A hash in another platform's form, or a
// phone without its country, matches nobody, and the count of unmatched events says so.
jest.setTimeout(180_000);

const PEOPLE = KNOWN_PEOPLE.slice(0, 100);
/** Where each platform's conversions land in the sandbox's match ledger: pixel, conversion action, goal name. */
const TARGETS: Record<MatchPlatform, string> = {
  meta: '555000111',
  google: '9001',
  microsoft: 'Offline purchase',
  linkedin: '17001',
  tiktok: 'CSBXSHOES0PIXEL00001',
};
const PLATFORMS: ReadonlyArray<[MatchPlatform, AdPlatform]> = [
  ['meta', 'meta_ads'],
  ['google', 'google_ads'],
  ['microsoft', 'microsoft_ads'],
  ['linkedin', 'linkedin_ads'],
  ['tiktok', 'tiktok_ads'],
];
/** The hashed identifiers each platform must receive, and match, for these people. */
const EXPECTED_KEYS: Record<MatchPlatform, string[]> = {
  meta: ['em', 'ph', 'fn', 'ln', 'ct', 'zp', 'country', 'db', 'ge'],
  google: ['email_address', 'phone_number', 'address'],
  microsoft: ['HashedEmailAddress', 'HashedPhoneNumber'],
  linkedin: ['SHA256_EMAIL'],
  tiktok: ['email', 'phone'],
};

/** Every identifier a conversion can pass on. */
const IDENTIFIERS: ConversionMapping['identifiers'] = [
  'email',
  'phone',
  'name',
  'address',
  'dateOfBirth',
  'gender',
  'externalId',
  'clickIds',
  'context',
];

let platforms: FakePlatforms;
let s: Record<'submissions', TestServer>;

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ submissions }, { submissions: submissionsConfig });
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const worker = workerProcesses({ DELIVERY_LINGER_MS: '500', DELIVERY_RETRY_BASE_MS: '100' });

test('100 known people posted as typed are matched by Meta, Google and Microsoft, each by its own rules', async () => {
  const owner = await createTestUser();
  const orgId = await createTestOrganization([[owner, 'owner']]);
  // The app reads a phone written without "+" or "00" in its default country (each person also gives theirs).
  const appFields = {
    name: 'Shop',
    websiteUrl: 'https://shop.example',
    gtmContainerId: 'GTM-SHOP1',
    payloadUrls: ['/thanks'],
    defaultCountry: 'US',
  };
  const app = await createApp(orgId, owner.uid, appFields);
  const { key } = await rotateSubmissionKey(orgId, app.id);
  for (const [, platform] of PLATFORMS) {
    const destinationId = await connectDestination(orgId, owner.uid, platform);
    await createConversion(orgId, 'growth', owner.uid, {
      name: `Purchases to ${platform}`,
      source: { type: 'app', appId: app.id },
      destination: { destinationId, ...SANDBOX_TARGETS[platform] },
      mapping: { events: [], value: { mode: 'event' }, identifiers: IDENTIFIERS },
    });
  }

  const prefix = `match-${Date.now()}`;
  const events = PEOPLE.map((person, index) => ({
    event: 'Purchase',
    eventId: `${prefix}-${index}`,
    value: 25 + index,
    currency: 'USD',
    email: person.email,
    phone: person.phone,
    firstName: person.firstName,
    lastName: person.lastName,
    city: person.city,
    ...(person.state ? { state: person.state } : {}),
    postalCode: person.postalCode,
    countryCode: person.countryCode,
    dateOfBirth: person.dateOfBirth,
    gender: person.gender,
    gclid: person.gclid,
    msclkid: person.msclkid,
    consent: { adUserData: 'granted', adPersonalization: 'granted' },
  }));
  const response = await call(s.submissions, { method: 'POST', token: key, body: { events } });
  expect(response.status).toBe(202);
  expect(response.body).toMatchObject({ success: true, accepted: 100 });

  worker();
  // Meta's and Google's dedup keys hold the event id; Microsoft's holds the click id and time.
  const clicks = new Set(PEOPLE.map((person) => person.msclkid));
  const ours = (entry: { key: string; event: Record<string, unknown> }) =>
    entry.key.includes(prefix) || clicks.has(String(entry.event.MicrosoftClickId));
  const arrived = (platform: MatchPlatform) => platforms.conversions.list(platform).filter(ours).length;
  await until(
    () => PLATFORMS.every(([platform]) => arrived(platform) === 100),
    150_000,
    () => `100 events at each platform (${PLATFORMS.map(([platform]) => `${platform} ${arrived(platform)}`).join(', ')})`,
  );

  for (const [platform] of PLATFORMS) {
    const total = platforms.matches.total(platform, TARGETS[platform]);
    // Every event matched: none carries a hash of another form, and none went without identifiers.
    expect({ platform, unmatched: total.unmatched, withoutIdentifiers: total.withoutIdentifiers }).toEqual({
      platform,
      unmatched: 0,
      withoutIdentifiers: 0,
    });
    expect(total.matched).toBe(total.events);
    expect(total.events).toBeGreaterThanOrEqual(100);
    for (const key of EXPECTED_KEYS[platform]) {
      expect({ platform, key, ...total.keys[key] }).toEqual({ platform, key, sent: total.events, matched: total.events });
    }
  }
});
