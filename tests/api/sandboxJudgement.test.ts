import { createHash, randomUUID } from 'node:crypto';
import { googleAds } from '@/lib/server/connectors/google_ads';
import { microsoftAds } from '@/lib/server/connectors/microsoft_ads';
import { emailGoogle } from '@/sandbox/google_ads/matching';
import { phoneMeta } from '@/sandbox/meta_ads/matching';
import { emailTrimmedLowercase, nameForm, phoneE164 } from '@/sandbox/normalise';
import { GRAPH_VERSION, META_DEMO_TOKEN } from '@/sandbox/meta_ads/accounts';
import { MICROSOFT_DEVELOPER_TOKEN } from '@/sandbox/microsoft_ads/accounts';
import { KNOWN_PEOPLE } from '@/sandbox/people';
import { consentTo, type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';

// The sandbox's fakes judge normalisation as their platforms do: a hash in the platform's documented
// form of a known person matches, the same person in another platform's form does not; an enum value
// outside the platform's list is refused in the platform's documented error shape.
/** A JSON answer, read field by field as the platform documents it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = Record<string, any>;
const APP_URL = 'http://localhost:3999';
const PIXEL = '555000111';
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** A person with a Gmail address whose local part has a dot: Google's form of it differs from Meta's. */
const person = KNOWN_PEOPLE.find((candidate) => /gmail\.com/i.test(candidate.email) && candidate.email.split('@')[0]!.includes('.'))!;

let platforms: FakePlatforms;
beforeAll(async () => {
  platforms = await startFakePlatforms({ appUrl: APP_URL });
  Object.assign(process.env, platformsEnv(platforms));
});
afterAll(() => platforms.close());
beforeEach(() => platforms.matches.reset());

describe('Meta: the Conversions API and the Dataset Quality API', () => {
  const graph = () => `${platforms.url}/meta/graph/${GRAPH_VERSION}`;
  const send = async (events: Array<Record<string, unknown>>) => {
    const response = await fetch(`${graph()}/${PIXEL}/events?access_token=${META_DEMO_TOKEN}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: events }),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const event = (userData: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    event_name: 'Lead',
    event_time: nowSeconds() - 60,
    event_id: randomUUID(),
    action_source: 'system_generated',
    user_data: userData,
    ...extra,
  });

  test("Meta's forms match; the same person in Google's forms does not", async () => {
    const metaForm = {
      em: sha256(emailTrimmedLowercase(person.email)),
      ph: sha256(phoneMeta(person.phoneE164)),
      fn: sha256(nameForm(person.firstName)),
    };
    expect((await send([event(metaForm)])).status).toBe(200);
    const googleForm = {
      em: sha256(emailGoogle(person.email)),
      ph: sha256(phoneE164(person.phoneE164)),
      fn: sha256(nameForm(person.firstName)),
    };
    expect((await send([event(googleForm)])).status).toBe(200);
    // Names without their inner space ("maryann") are nobody's either.
    expect((await send([event({ em: metaForm.em, fn: sha256('maryann') })])).status).toBe(200);
    expect(platforms.matches.total('meta', PIXEL)).toMatchObject({
      events: 3,
      matched: 1,
      unmatched: 2,
      keys: { em: { sent: 3, matched: 2 }, ph: { sent: 2, matched: 1 }, fn: { sent: 3, matched: 2 } },
    });

    const response = await fetch(
      `${graph()}/dataset_quality?dataset_id=${PIXEL}&agent_name=signalbridge&fields=${encodeURIComponent('web{event_match_quality,event_name}')}&access_token=${META_DEMO_TOKEN}`,
    );
    expect(response.status).toBe(200);
    const quality = (await response.json()) as { web: Array<Answer> };
    expect(quality.web).toEqual([
      {
        event_name: 'Lead',
        event_match_quality: {
          composite_score: 3.3,
          match_key_feedback: expect.arrayContaining([
            { identifier: 'email', coverage: { percentage: 100 } },
            { identifier: 'phone', coverage: { percentage: 66.7 } },
            { identifier: 'first_name', coverage: { percentage: 100 } },
          ]),
          diagnostics: expect.arrayContaining([
            expect.objectContaining({ name: 'Invalid phone values', affected_event_count: 1, total_event_count: 3 }),
          ]),
        },
      },
    ]);
    // Another pixel's quality is not this one's; an unknown dataset is refused as Graph refuses it.
    const unknown = await fetch(`${graph()}/dataset_quality?dataset_id=999&access_token=${META_DEMO_TOKEN}`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(100);
    expect((await fetch(`${graph()}/dataset_quality?dataset_id=${PIXEL}`)).status).toBe(400);
  });

  test.each([
    ['action_source', { action_source: 'web' }],
    ['data_processing_options', { data_processing_options: ['ldu'] }],
    ['data_processing_options_country', { data_processing_options: ['LDU'], data_processing_options_country: 840 }],
    [
      'data_processing_options_state',
      { data_processing_options: ['LDU'], data_processing_options_country: 1, data_processing_options_state: 6 },
    ],
  ])('%s outside Meta’s list → 400 naming it (code 100, subcode 2804019)', async (field, extra) => {
    const response = await send([event({ em: sha256(emailTrimmedLowercase(person.email)) }, extra)]);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      type: 'OAuthException',
      code: 100,
      error_subcode: 2804019,
      error_user_msg: expect.stringContaining(`['${field}']`),
      fbtrace_id: expect.any(String),
    });
    expect(platforms.matches.list({ platform: 'meta' })).toEqual([]);
  });

  test('Limited Data Use with its documented values is taken', async () => {
    const ldu = { data_processing_options: ['LDU'], data_processing_options_country: 1, data_processing_options_state: 1000 };
    expect((await send([event({ em: sha256(emailTrimmedLowercase(person.email)) }, ldu)])).status).toBe(200);
    const geolocated = { data_processing_options: ['LDU'], data_processing_options_country: 0, data_processing_options_state: 0 };
    expect((await send([event({ em: sha256(emailTrimmedLowercase(person.email)) }, geolocated)])).status).toBe(200);
    expect((await send([event({ em: sha256(emailTrimmedLowercase(person.email)) }, { data_processing_options: [] })])).status).toBe(200);
  });
});

describe('Google Data Manager: events:ingest and requestStatus:retrieve', () => {
  let accessToken: string;
  const ACTION = '9001';
  const ACCOUNT = '5556667778';
  beforeAll(async () => {
    const auth = googleAds.auth.oauth!;
    const returned = await consentTo(auth.authorizeUrl('state-judgement', `${APP_URL}/addConversionDestination`));
    const connection = await auth.exchangeCode(returned.searchParams.get('code')!, `${APP_URL}/addConversionDestination`);
    accessToken = (await googleAds.openSession(connection.credential)).accessToken;
  });
  const ingest = async (events: Array<Record<string, unknown>>) => {
    const response = await fetch(`${process.env.GOOGLE_DATA_MANAGER_API_URL}/events:ingest`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        destinations: [{ operatingAccount: { accountType: 'GOOGLE_ADS', accountId: ACCOUNT }, productDestinationId: ACTION }],
        encoding: 'HEX',
        events,
      }),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const event = (identifiers: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
    transactionId: randomUUID(),
    eventTimestamp: new Date(Date.now() - 60_000).toISOString(),
    eventSource: 'WEB',
    userData: { userIdentifiers: identifiers },
    ...extra,
  });

  test("Google's forms match (Gmail without dots, phone with +, the address); Meta's forms do not", async () => {
    const good = await ingest([
      event([
        { emailAddress: sha256(emailGoogle(person.email)) },
        { phoneNumber: sha256(phoneE164(person.phoneE164)) },
        {
          address: {
            givenName: sha256(nameForm(person.firstName)),
            familyName: sha256(nameForm(person.lastName)),
            regionCode: person.countryCode.trim().toUpperCase(),
            postalCode: person.postalCode.trim(),
          },
        },
      ]),
    ]);
    expect(good.status).toBe(200);
    const wrong = await ingest([
      event([{ emailAddress: sha256(emailTrimmedLowercase(person.email)) }, { phoneNumber: sha256(phoneMeta(person.phoneE164)) }]),
    ]);
    expect(wrong.status).toBe(200);
    expect(platforms.matches.total('google', ACTION)).toMatchObject({
      events: 2,
      matched: 1,
      unmatched: 1,
      keys: { email_address: { sent: 2, matched: 1 }, phone_number: { sent: 2, matched: 1 }, address: { sent: 1, matched: 1 } },
    });

    const status = await fetch(
      `${process.env.GOOGLE_DATA_MANAGER_API_URL}/requestStatus:retrieve?requestId=${encodeURIComponent(good.body.requestId)}`,
      { headers: { Authorization: `Bearer ${accessToken}` } },
    );
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({
      requestStatusPerDestination: [
        {
          destination: { operatingAccount: { accountType: 'GOOGLE_ADS', accountId: ACCOUNT }, productDestinationId: ACTION },
          requestStatus: 'SUCCESS',
          eventsIngestionStatus: { recordCount: '1' },
        },
      ],
    });
    const missing = await fetch(`${process.env.GOOGLE_DATA_MANAGER_API_URL}/requestStatus:retrieve?requestId=nope`, {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.status).toBe('NOT_FOUND');
    const anonymous = await fetch(`${process.env.GOOGLE_DATA_MANAGER_API_URL}/requestStatus:retrieve?requestId=${good.body.requestId}`);
    expect(anonymous.status).toBe(401);
  });

  test('a denied adUserData is ingested but not used: the request status counts it as DENIED_CONSENT', async () => {
    const denied = await ingest([
      event([{ emailAddress: sha256(emailGoogle(person.email)) }], {
        consent: { adUserData: 'CONSENT_DENIED', adPersonalization: 'CONSENT_DENIED' },
      }),
      event([{ emailAddress: sha256(emailGoogle(person.email)) }], {
        consent: { adUserData: 'CONSENT_GRANTED', adPersonalization: 'CONSENT_GRANTED' },
      }),
    ]);
    expect(denied.status).toBe(200);
    const status = await fetch(`${process.env.GOOGLE_DATA_MANAGER_API_URL}/requestStatus:retrieve?requestId=${denied.body.requestId}`, {
      headers: { Authorization: `Bearer ${accessToken}` },
    });
    expect((await status.json()).requestStatusPerDestination[0]).toMatchObject({
      requestStatus: 'PARTIAL_SUCCESS',
      errorInfo: { errorCounts: [{ recordCount: '1', reason: 'PROCESSING_ERROR_REASON_DENIED_CONSENT' }] },
      eventsIngestionStatus: { recordCount: '1' },
    });
  });

  test.each([
    ['consent.adUserData', { consent: { adUserData: 'GRANTED' } }, 'events[0].consent.ad_user_data'],
    ['eventSource', { eventSource: 'WEBSITE' }, 'events[0].event_source'],
  ])('%s outside the proto enum → 400 INVALID_ARGUMENT naming the field', async (_name, extra, field) => {
    const refused = await ingest([event([{ emailAddress: sha256(emailGoogle(person.email)) }], extra)]);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const violations = refused.body.error.details.find((detail: { '@type': string }) =>
      detail['@type'].endsWith('BadRequest'),
    ).fieldViolations;
    expect(violations).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    expect(platforms.matches.list({ platform: 'google' })).toEqual([]);
  });
});

describe('Microsoft: enhanced offline conversions', () => {
  let accessToken: string;
  beforeAll(async () => {
    const auth = microsoftAds.auth.oauth!;
    const returned = await consentTo(auth.authorizeUrl('state-judgement', `${APP_URL}/addConversionDestination`));
    const connection = await auth.exchangeCode(returned.searchParams.get('code')!, `${APP_URL}/addConversionDestination`);
    accessToken = (await microsoftAds.openSession(connection.credential)).accessToken;
  });
  const apply = async (rows: Array<Record<string, unknown>>) => {
    const response = await fetch(`${process.env.MICROSOFT_CAMPAIGN_MANAGEMENT_URL}/OfflineConversions/Apply`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${accessToken}`,
        DeveloperToken: MICROSOFT_DEVELOPER_TOKEN,
        CustomerId: '9001',
        CustomerAccountId: '301',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ OfflineConversions: rows }),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const row = (hashed: Record<string, unknown>) => ({
    MicrosoftClickId: person.msclkid,
    ConversionName: 'Offline purchase',
    ConversionTime: new Date(Date.now() - 60_000 - Math.floor(Math.random() * 1e6)).toISOString(),
    ...hashed,
  });

  test("the email trimmed and lowercased and the phone in E.164 with + match; Meta's digits-only phone does not", async () => {
    const response = await apply([
      row({ HashedEmailAddress: sha256(emailTrimmedLowercase(person.email)), HashedPhoneNumber: sha256(phoneE164(person.phoneE164)) }),
      row({ HashedEmailAddress: sha256(emailTrimmedLowercase(person.email)), HashedPhoneNumber: sha256(phoneMeta(person.phoneE164)) }),
      row({ HashedEmailAddress: sha256(emailGoogle(person.email)) }),
    ]);
    expect(response).toEqual({ status: 200, body: { PartialErrors: [] } });
    expect(platforms.matches.total('microsoft', 'Offline purchase')).toMatchObject({
      events: 3,
      matched: 1,
      unmatched: 2,
      keys: { HashedEmailAddress: { sent: 3, matched: 2 }, HashedPhoneNumber: { sent: 2, matched: 1 } },
    });
    const page = await (await fetch(`${platforms.url}/__sandbox/matches`)).text();
    expect(page).toContain('Offline purchase');
    const listed = (await (await fetch(`${platforms.url}/__sandbox/matches.json?platform=microsoft`)).json()) as { matches: unknown[] };
    expect(listed.matches).toHaveLength(1);
  });
});
