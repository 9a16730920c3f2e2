import fc from 'fast-check';
import submissions, { config as submissionsConfig } from '@/pages/api/submissions';
import { IDENTIFIERS } from '@/lib/shared/conversions/conversion';
import type { DeliveryRow } from '@/lib/shared/conversions/conversion';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { sha256Hex } from '@/lib/server/sha256';
import { createApp, rotateSubmissionKey } from '@/lib/server/repos/apps';

import { createConversion } from '@/lib/server/services/conversions';
import { platformsEnv, startFakePlatforms, type FakePlatforms } from '@/sandbox/platforms';
import { createTestOrganization, createTestUser } from '@/tests/fixtures/firebase';
import { connectDestination, SANDBOX_TARGETS } from '@/tests/api/helpers/conversions';
import { call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { workerProcesses } from '@/tests/api/helpers/workers';
import { untilValue } from '@/tests/api/helpers/until';
import { listDeliveries } from '@/lib/server/repos/deliveryLog';

// An event with every identifier and consent, posted through POST /api/submissions and delivered by
// the worker: each platform receives each identifier in its own form, and the delivery log says what
// was withheld and why. Then issue 23 §2: every id answered 202 is found in the log.
jest.setTimeout(240_000);

let platforms: FakePlatforms;
let s: Record<'submissions', TestServer>;
let orgId: string;
let key: string;
const conversionIds = {} as Record<AdPlatform, string>;

const worker = workerProcesses({ DELIVERY_LINGER_MS: '500', DELIVERY_RETRY_BASE_MS: '100' });

beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  s = await serveHandlers({ submissions }, { submissions: submissionsConfig });
  const owner = await createTestUser();
  orgId = await createTestOrganization([[owner, 'owner']]);
  // No default country: a phone written without its country is withheld.
  const app = await createApp(orgId, owner.uid, {
    name: 'Shop',
    websiteUrl: 'https://shop.example',
    gtmContainerId: 'GTM-SHOP1',
    payloadUrls: [],
  });
  ({ key } = await rotateSubmissionKey(orgId, app.id));
  for (const platform of ['meta_ads', 'google_ads', 'microsoft_ads'] as const) {
    const destinationId = await connectDestination(orgId, owner.uid, platform);
    const conversion = await createConversion(orgId, 'growth', owner.uid, {
      name: platform,
      source: { type: 'app', appId: app.id },
      destination: { destinationId, ...SANDBOX_TARGETS[platform] },
      mapping: { events: [], value: { mode: 'event' }, identifiers: [...IDENTIFIERS] },
    });
    conversionIds[platform] = conversion.id;
  }
});
afterAll(async () => {
  await closeAll(s);
  await platforms.close();
});

const submit = (body: unknown) => call(s.submissions, { method: 'POST', token: key, body });

/** The log's row of an event at a platform's conversion. */
const rowOf = (platform: AdPlatform, eventId: string) =>
  untilValue(
    async () => {
      const records = await listDeliveries(orgId, conversionIds[platform], { eventId });
      return records.flatMap((record) => record.rows).find((row) => row.id === eventId) ?? null;
    },
    (row) => row !== null,
    60_000,
    `${eventId} in the ${platform} log`,
  ) as Promise<DeliveryRow>;

/** Microsoft's ledger knows a conversion by its click id (32 hex, as Microsoft's are). */
const CLICK = { full: `${'0'.repeat(31)}1`, nocountry: `${'0'.repeat(31)}2`, denied: `${'0'.repeat(31)}3` };

const received = (platform: 'meta' | 'google' | 'microsoft', eventId: string) =>
  platforms.conversions.list(platform).find((entry) => entry.key.includes(eventId))?.event;

test('every new field and consent reach each platform in its form; the log names what was withheld and why', async () => {
  worker();
  const now = new Date(Date.now() - 60_000).toISOString();
  const person = {
    occurredAt: now,
    email: 'Jane.Doe+Promo@GMail.com',
    firstName: 'Mary Ann',
    lastName: 'Smith',
    city: 'Mountain View',
    state: 'CA',
    postalCode: '94035',
    countryCode: 'US',
    dateOfBirth: '1990-01-15',
    gender: 'f',
    gclid: 'Cj0-match',
    fbc: 'fb.1.1700000000000.match',
    ip: '203.0.113.9',
    userAgent: 'Mozilla/5.0',
    pageUrl: 'https://shop.example/thanks?email=jane%40example.com&utm_source=ads',
  };
  const answer = await submit({
    events: [
      {
        ...person,
        event: 'Lead',
        eventId: 'mk-full',
        msclkid: CLICK.full,
        phone: '+1 (650) 555-1212',
        consent: { adUserData: 'granted', adPersonalization: 'denied' },
        limitedDataUse: true,
        favouriteColour: 'blue',
      },
      { ...person, event: 'Lead', eventId: 'mk-nocountry', msclkid: CLICK.nocountry, phone: '(650) 555-1212', countryCode: undefined },
      {
        ...person,
        event: 'Lead',
        eventId: 'mk-denied',
        msclkid: CLICK.denied,
        phone: '+1 650 555 1212',
        consent: { adUserData: 'denied' },
      },
    ],
  });
  expect(answer.status).toBe(202);
  // Ad user data denied: the 202 already says which conversions will not send it (issue 37 §4), in the log's words (below).
  const deniedBy = (platform: AdPlatform) =>
    expect.objectContaining({ conversion: { id: conversionIds[platform], name: platform }, platform });
  expect(answer.body.results).toEqual([
    { index: 0, id: 'mk-full', warnings: [{ field: 'favouriteColour', message: 'Unknown field: ignored, not stored' }] },
    { index: 1, id: 'mk-nocountry' },
    { index: 2, id: 'mk-denied', warnings: [deniedBy('meta_ads'), deniedBy('microsoft_ads')] },
  ]);
  const warned = (answer.body.results as Array<{ warnings?: Array<{ platform?: string; reason?: string }> }>)[2]!.warnings!;

  // Meta: its own forms (the SDK's, tests/unit/matchKeys.test.ts), LDU, no email in the page URL.
  expect((await rowOf('meta_ads', 'mk-full')).status).toBe('delivered');
  const meta = received('meta', 'mk-full')!;
  expect(meta.user_data).toMatchObject({
    em: [sha256Hex('jane.doe+promo@gmail.com')],
    ph: [sha256Hex('16505551212')],
    fn: sha256Hex('mary ann'),
    ln: sha256Hex('smith'),
    ct: sha256Hex('mountainview'),
    st: sha256Hex('ca'),
    zp: sha256Hex('94035'),
    country: sha256Hex('us'),
    db: sha256Hex('19900115'),
    ge: sha256Hex('f'),
  });
  expect(meta).toMatchObject({ data_processing_options: ['LDU'], data_processing_options_country: 0, data_processing_options_state: 0 });
  expect(meta.event_source_url).toBe('https://shop.example/thanks?utm_source=ads');
  expect(JSON.stringify(meta)).not.toMatch(/favouriteColour|blue/);

  // Google: Gmail form, E.164 with +, the address in clear parts, consent by the protos' names.
  expect((await rowOf('google_ads', 'mk-full')).status).toBe('delivered');
  const google = received('google', 'mk-full')!;
  expect(google.userData).toEqual({
    userIdentifiers: [
      { emailAddress: sha256Hex('janedoe@gmail.com') },
      { phoneNumber: sha256Hex('+16505551212') },
      { address: { givenName: sha256Hex('mary ann'), familyName: sha256Hex('smith'), regionCode: 'US', postalCode: '94035' } },
    ],
  });
  expect(google.consent).toEqual({ adUserData: 'CONSENT_GRANTED', adPersonalization: 'CONSENT_DENIED' });

  // Microsoft: email trimmed and lowercased, phone E.164 with +.
  expect((await rowOf('microsoft_ads', 'mk-full')).status).toBe('delivered');
  expect(received('microsoft', CLICK.full)).toMatchObject({
    HashedEmailAddress: sha256Hex('jane.doe+promo@gmail.com'),
    HashedPhoneNumber: sha256Hex('+16505551212'),
  });

  // A phone without its country: sent without the phone, and the log says why (Google also misses the address).
  const withheld: DeliveryRow = await rowOf('meta_ads', 'mk-nocountry');
  expect(withheld).toMatchObject({ status: 'delivered', reason: 'Phone not sent: no country code and the app has no default country' });
  expect((received('meta', 'mk-nocountry')!.user_data as Record<string, unknown>).ph).toBeUndefined();
  expect((await rowOf('google_ads', 'mk-nocountry')).reason).toMatch(/^Phone not sent: no country code .*; Address not sent to Google Ads/);

  // Ad user data denied: not sent to Meta or Microsoft (with the reason), sent to Google with the consent.
  expect(await rowOf('meta_ads', 'mk-denied')).toMatchObject({
    status: 'not_sent',
    reason: expect.stringMatching(/^Consent: the person denied ad user data/),
  });
  expect(await rowOf('microsoft_ads', 'mk-denied')).toMatchObject({ status: 'not_sent', reason: expect.stringMatching(/^Consent: /) });
  // The 202's warnings and the log's rows are one judgement: the same reason, word for word.
  for (const platform of ['meta_ads', 'microsoft_ads'] as const)
    expect(warned.find((warning) => warning.platform === platform)?.reason).toBe((await rowOf(platform, 'mk-denied')).reason);
  expect(received('meta', 'mk-denied')).toBeUndefined();
  expect((await rowOf('google_ads', 'mk-denied')).status).toBe('delivered');
  expect(received('google', 'mk-denied')!.consent).toEqual({ adUserData: 'CONSENT_DENIED' });
});

test('issue 23 §2: every id answered 202 — before 1970, a 495-character fbclid, anything valid — is found in the delivery log', async () => {
  worker();
  const day = 24 * 3600 * 1000;
  const submission = fc.record(
    {
      event: fc.constantFrom('Lead', 'Purchase', 'Sign Up'),
      occurredAt: fc.integer({ min: Date.UTC(1969, 0, 1), max: Date.now() + day }).map((ms) => new Date(ms).toISOString()),
      email: fc.constantFrom('a@example.com', 'Jane.Doe+x@GMail.com', sha256Hex('b@example.com')),
      phone: fc.constantFrom('+1 650 555 1212', '(650) 555-1212', '+44 20 7946 0958', '0049 30 1234567'),
      firstName: fc
        .string({ minLength: 1, maxLength: 30, unit: fc.constantFrom('a', 'É', ' ', '-', "'", 'z') })
        .filter((name) => name.trim().length > 0),
      fbclid: fc.string({ minLength: 1, maxLength: 500, unit: fc.constantFrom('a', 'B', '1', '_', '-') }),
      gclid: fc.string({ minLength: 1, maxLength: 200, unit: fc.constantFrom('a', 'Z', '0', '-') }),
      countryCode: fc.constantFrom('US', 'gb', 'DE'),
      dateOfBirth: fc
        .integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2010, 0, 1) })
        .map((ms) => new Date(ms).toISOString().slice(0, 10)),
      value: fc.integer({ min: 0, max: 10_000 }),
      consent: fc.record({ adUserData: fc.constantFrom('granted', 'denied') }, { requiredKeys: [] }),
      userAgent: fc.constant('Mozilla/5.0'),
    },
    { requiredKeys: ['event'] },
  );
  const events = fc
    .sample(submission, { numRuns: 60, seed: 23 })
    .map((event) => ('value' in event ? { ...event, currency: 'USD' } : event));
  // The cases of the issue, always among them.
  events.push(
    { event: 'Lead', occurredAt: '1960-01-01T00:00:00Z', email: 'old@example.com' } as (typeof events)[number],
    { event: 'Lead', occurredAt: '0001-01-01T00:00:00Z', email: 'older@example.com' } as (typeof events)[number],
    { event: 'Lead', fbclid: 'x'.repeat(495), userAgent: 'Mozilla/5.0' } as (typeof events)[number],
  );
  const answer = await submit({ events });
  expect(answer.status).toBe(202);
  const results = answer.body.results as Array<{ index: number; id?: string; error?: { fieldErrors: Record<string, string[]> } }>;
  // Before 1970 is refused at once, naming the field: never a 202 that vanishes.
  expect(results[events.length - 3]!.error?.fieldErrors).toHaveProperty('occurredAt');
  expect(results[events.length - 2]!.error?.fieldErrors).toHaveProperty('occurredAt');
  const ids = results.flatMap((result) => (result.id ? [result.id] : []));
  expect(ids).toContain(results[events.length - 1]!.id);
  expect(ids.length).toBeGreaterThan(40);
  for (const id of ids) {
    const row = await rowOf('meta_ads', id);
    expect(['delivered', 'not_sent', 'rejected']).toContain(row.status);
  }
});
