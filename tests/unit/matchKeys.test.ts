/** @jest-environment node */
import { UserData } from 'facebook-nodejs-business-sdk';
import { toDataManagerEvent } from '@/lib/server/connectors/google_ads/delivery';
import { metaDelivery, toMetaEvent } from '@/lib/server/connectors/meta_ads/delivery';
import { microsoftDelivery } from '@/lib/server/connectors/microsoft_ads/delivery';
import { withheldNotes } from '@/lib/server/delivery/deliver';
import { mapEvent } from '@/lib/server/delivery/mapping';
import { cleanPageUrl, hashPerson, toConversionEvent, type PersonInput } from '@/lib/server/delivery/normalize';
import { sha256Hex } from '@/lib/server/sha256';
import { rowToEvent } from '@/lib/server/delivery/warehouseRows';
import { IDENTIFIERS } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { matchKeysOf } from '@/lib/shared/conversions/matchKeys';
import { submittedEventSchema } from '@/lib/shared/schemas/submissions';
import { dataManagerProtos, readProtoJson } from '@/sandbox/google_ads/dataManager';

// Each platform's own form of each identifier (docs/MATCH_KEYS.md): the vectors, Meta's
// official business SDK as the oracle for every Meta field, Google's formatting guide for Google.

const NOW = new Date('2026-11-25T12:00:00Z');
const nowSeconds = NOW.getTime() / 1000;

const eventOf = (input: Record<string, unknown>, defaults: { defaultCountry?: string } = {}) =>
  toConversionEvent(submittedEventSchema.parse({ event: 'Lead', ...input }), {
    source: 'app:a1',
    receivedAt: NOW,
    sourceLabel: 'app',
    ...defaults,
  });

describe('the vectors every platform must match', () => {
  test('phone +1 (650) 555-1212: Google and Microsoft E.164 with its +, Meta digits only', () => {
    const { user } = hashPerson({ phone: '+1 (650) 555-1212' });
    expect(user.phoneE164).toBe(sha256Hex('+16505551212'));
    expect(user.phone).toBe(sha256Hex('16505551212'));
  });

  test('Jane.Doe+Promo@GMail.com: Google janedoe@gmail.com, Meta and Microsoft jane.doe+promo@gmail.com', () => {
    const { user } = hashPerson({ email: 'Jane.Doe+Promo@GMail.com' });
    expect(user.emailGoogle).toBe(sha256Hex('janedoe@gmail.com'));
    expect(user.email).toBe(sha256Hex('jane.doe+promo@gmail.com'));
    // googlemail.com too; any other domain keeps its dots and plus, and Google's form is then the same one.
    expect(hashPerson({ email: 'a.b+c@googlemail.com' }).user.emailGoogle).toBe(sha256Hex('ab@googlemail.com'));
    expect(hashPerson({ email: 'User.Name+NYC@Example.com' }).user).toEqual({ email: sha256Hex('user.name+nyc@example.com') });
  });

  test('Mary Ann → Meta "mary ann": inner spaces kept, runs collapsed, punctuation removed', () => {
    expect(hashPerson({ firstName: 'Mary Ann' }).user.firstName).toBe(sha256Hex('mary ann'));
    expect(hashPerson({ firstName: '  Mary   Ann. ' }).user.firstName).toBe(sha256Hex('mary ann'));
  });

  test('a value already hashed goes as it is to every form', () => {
    const hash = sha256Hex('+16505551212');
    expect(hashPerson({ phone: hash.toUpperCase(), email: hash }).user).toEqual({ email: hash, phone: hash, phoneE164: hash });
  });
});

describe("Meta: our hashes equal the official business SDK's", () => {
  /** Messy real-world spellings; the SDK gets each value in the form it expects (it does no phone parsing or date reformatting). */
  const people: Array<{ ours: PersonInput; sdk: Record<string, string> }> = [
    {
      ours: {
        email: '  Jane.Doe+Promo@GMail.com ',
        phone: '+1 (650) 555-1212',
        firstName: 'Mary Ann',
        lastName: 'Smith',
        city: 'New York',
        state: 'NY',
        postalCode: '94035-1234',
        countryCode: 'US',
        dateOfBirth: '1990-01-15',
        gender: 'f',
      },
      sdk: {
        em: 'Jane.Doe+Promo@GMail.com',
        ph: '16505551212',
        fn: 'Mary Ann',
        ln: 'Smith',
        ct: 'New York',
        st: 'NY',
        zp: '94035-1234',
        country: 'US',
        db: '19900115',
        ge: 'f',
      },
    },
    {
      ours: {
        email: 'Zoe.Mueller@Example.DE',
        phone: '030 1234567',
        firstName: 'Zoë',
        lastName: 'Müller',
        city: 'Frankfurt am Main',
        state: 'he',
        postalCode: '60311',
        countryCode: 'de',
        dateOfBirth: '1985-12-01',
        gender: 'M',
      },
      sdk: {
        em: 'Zoe.Mueller@Example.DE',
        ph: '49301234567',
        fn: 'Zoë',
        ln: 'Müller',
        ct: 'Frankfurt am Main',
        st: 'he',
        zp: '60311',
        country: 'de',
        db: '19851201',
        ge: 'm',
      },
    },
    {
      ours: {
        email: 'a@b.co',
        phone: '0044 20 7946 0958',
        firstName: 'Jean Luc',
        lastName: 'Picard',
        city: 'La Barre',
        postalCode: 'SW1A 1AA',
        countryCode: 'GB',
      },
      sdk: { em: 'a@b.co', ph: '442079460958', fn: 'Jean Luc', ln: 'Picard', ct: 'La Barre', zp: 'SW1A 1AA', country: 'GB' },
    },
  ];
  const FIELDS: Array<[keyof ConversionEvent['user'], string]> = [
    ['email', 'em'],
    ['phone', 'ph'],
    ['firstName', 'fn'],
    ['lastName', 'ln'],
    ['city', 'ct'],
    ['state', 'st'],
    ['postalCode', 'zp'],
    ['countryCode', 'country'],
    ['dateOfBirth', 'db'],
    ['gender', 'ge'],
  ];

  test.each(people.map((person, index) => [index, person] as const))('person %i', (_index, { ours, sdk }) => {
    const oracle = new UserData();
    if (sdk.em) oracle.setEmail(sdk.em.trim());
    if (sdk.ph) oracle.setPhone(sdk.ph);
    if (sdk.fn) oracle.setFirstName(sdk.fn);
    if (sdk.ln) oracle.setLastName(sdk.ln);
    if (sdk.ct) oracle.setCity(sdk.ct);
    if (sdk.st) oracle.setState(sdk.st);
    if (sdk.zp) oracle.setZip(sdk.zp);
    if (sdk.country) oracle.setCountry(sdk.country);
    if (sdk.db) oracle.setDateOfBirth(sdk.db);
    if (sdk.ge) oracle.setGender(sdk.ge);
    const expected = oracle.normalize() as Record<string, string[]>;
    const { user } = hashPerson(ours, { defaultCountry: 'DE' });
    const wire = toMetaEvent({
      id: 'e',
      name: 'Lead',
      time: nowSeconds,
      value: null,
      currency: null,
      user,
      clickIds: {},
      context: { actionSource: 'system_generated' },
    }).user_data as Record<string, unknown>;
    for (const [field, key] of FIELDS) {
      if (!sdk[key]) continue;
      expect({ key, ours: user[field] }).toEqual({ key, ours: expected[key]![0] });
      const sent = wire[key];
      expect({ key, sent: Array.isArray(sent) ? sent[0] : sent }).toEqual({ key, sent: expected[key]![0] });
    }
  });
});

describe('phones and their country', () => {
  test("a number without + or 00 is read in the event's country, else the source's default", () => {
    expect(eventOf({ phone: '(650) 555-1212' }, { defaultCountry: 'US' }).user.phoneE164).toBe(sha256Hex('+16505551212'));
    expect(eventOf({ phone: '020 7946 0958', countryCode: 'GB' }, { defaultCountry: 'US' }).user.phoneE164).toBe(
      sha256Hex('+442079460958'),
    );
  });

  test('without either it is not sent, and the event says why; a number that cannot be one neither', () => {
    const event = eventOf({ phone: '(650) 555-1212', email: 'a@b.co' });
    expect(event.user).not.toHaveProperty('phone');
    expect(event.user).not.toHaveProperty('phoneE164');
    expect(event.withheld).toEqual([{ field: 'phone', reason: 'Phone not sent: no country code and the app has no default country' }]);
    expect(eventOf({ phone: '12' }, { defaultCountry: 'US' }).withheld?.[0]?.reason).toMatch(/^Phone not sent: it is not a phone number/);
  });

  test("the delivery log's words come only for the platforms concerned, and only when the mapping sends that identifier", () => {
    const event = eventOf({ phone: '(650) 555-1212', postalCode: '94035', firstName: 'A', email: 'a@b.co' });
    const all = { events: [], value: { mode: 'event' as const }, identifiers: [...IDENTIFIERS] };
    const mapped = mapEvent(all, event);
    expect(withheldNotes([mapped], 'meta_ads').get(event.id)).toBe('Phone not sent: no country code and the app has no default country');
    expect(withheldNotes([mapped], 'google_ads').get(event.id)).toMatch(/^Phone not sent: .*; Address not sent to Google Ads/);
    const emailOnly = mapEvent({ ...all, identifiers: ['email'] }, event);
    expect(withheldNotes([emailOnly], 'google_ads').size).toBe(0);
  });
});

describe('Google: address identifier and consent, as the protos take them', () => {
  const full = { firstName: 'Mary Ann', lastName: "O'Neil", countryCode: 'us', postalCode: ' 94035 ', email: 'Jane.Doe@gmail.com' };

  test('all four parts: hashed names, region and postal code in clear; consent with the protos’ enum names', () => {
    const event = eventOf({ ...full, consent: { adUserData: 'granted', adPersonalization: 'denied' } });
    const wire = toDataManagerEvent(event, NOW);
    expect(wire.userData).toEqual({
      userIdentifiers: [
        { emailAddress: sha256Hex('janedoe@gmail.com') },
        { address: { givenName: sha256Hex('mary ann'), familyName: sha256Hex('oneil'), regionCode: 'US', postalCode: '94035' } },
      ],
    });
    expect(wire.consent).toEqual({ adUserData: 'CONSENT_GRANTED', adPersonalization: 'CONSENT_DENIED' });
    const type = dataManagerProtos().lookupType('google.ads.datamanager.v1.Event');
    expect(readProtoJson(type, wire).violations).toEqual([]);
  });

  test('a part missing: no address, and the reason for Google only', () => {
    const event = eventOf({ ...full, lastName: undefined });
    expect(event.address).toBeUndefined();
    expect(event.withheld).toEqual([expect.objectContaining({ field: 'address', platforms: ['google_ads'] })]);
  });

  test('no consent given and no default: none sent', () => {
    expect(toDataManagerEvent(eventOf(full), NOW)).not.toHaveProperty('consent');
  });
});

describe('Meta and Microsoft: consent and Limited Data Use', () => {
  const base = { email: 'a@b.co', msclkid: 'ms-1', ip: '203.0.113.9', userAgent: 'Mozilla/5.0' };

  test('ad user data denied: not sent to Meta or Microsoft, with the reason', () => {
    const denied = eventOf({ ...base, consent: { adUserData: 'denied' } });
    expect(metaDelivery.check(denied, NOW)).toMatch(/^Consent: the person denied ad user data/);
    expect(microsoftDelivery.check(denied, NOW)).toMatch(/^Consent: the person denied ad user data/);
    const granted = eventOf({ ...base, consent: { adUserData: 'granted' } });
    expect(metaDelivery.check(granted, NOW)).toBeNull();
    expect(microsoftDelivery.check(granted, NOW)).toBeNull();
  });

  test('limitedDataUse → data_processing_options LDU with country and state 0 (Meta geolocates)', () => {
    const wire = toMetaEvent(eventOf({ ...base, limitedDataUse: true }));
    expect(wire).toMatchObject({ data_processing_options: ['LDU'], data_processing_options_country: 0, data_processing_options_state: 0 });
    expect(toMetaEvent(eventOf(base))).not.toHaveProperty('data_processing_options');
  });
});

describe('matchKeysOf: what each platform receives in its own form', () => {
  test('a full event', () => {
    const event = eventOf({
      email: 'a@b.co',
      phone: '+16505551212',
      firstName: 'A',
      lastName: 'B',
      countryCode: 'US',
      postalCode: '94035',
      gclid: 'g',
      fbclid: 'f',
      msclkid: 'm',
      ip: '203.0.113.9',
      userAgent: 'UA',
      consent: { adUserData: 'granted' },
    });
    expect(matchKeysOf(event, 'meta_ads')).toEqual(['email', 'phone', 'address', 'clickId', 'ipUserAgent', 'consent']);
    expect(matchKeysOf(event, 'google_ads')).toEqual(['email', 'phone', 'address', 'clickId', 'ipUserAgent', 'consent']);
    expect(matchKeysOf(event, 'microsoft_ads')).toEqual(['email', 'phone', 'clickId', 'consent']);
  });

  test('a phone without a country is no phone anywhere; a partial address is one for Meta only; no click id of theirs', () => {
    const event = eventOf({ phone: '650 555 1212', postalCode: '94035', gclid: 'g' });
    expect(matchKeysOf(event, 'meta_ads')).toEqual(['address']);
    expect(matchKeysOf(event, 'google_ads')).toEqual(['clickId']);
    expect(matchKeysOf(event, 'microsoft_ads')).toEqual([]);
  });
});

describe('page URLs lose personal data, keep campaign tags and click ids (issue 23 §3.2)', () => {
  test.each([
    ['https://shop.example/thanks?email=jane%40example.com&utm_source=fb', 'https://shop.example/thanks?utm_source=fb'],
    ['https://shop.example/t?e=jane@example.com&fbclid=IwAR1&gclid=Cj0', 'https://shop.example/t?fbclid=IwAR1&gclid=Cj0'],
    ['https://shop.example/t?phone=%2B1%20650%20555%201212&msclkid=abc', 'https://shop.example/t?msclkid=abc'],
    ['https://shop.example/t?first_name=Jane&last_name=Doe&plan=pro', 'https://shop.example/t?plan=pro'],
    ['https://shop.example/t?q=6505551212&ref=home', 'https://shop.example/t?ref=home'],
    ['https://user:pw@shop.example/u/jane@example.com/done#email=x', 'https://shop.example/u/redacted/done'],
    ['https://shop.example/thanks', 'https://shop.example/thanks'],
  ])('%s → %s', (given, expected) => {
    expect(cleanPageUrl(given)).toBe(expected);
  });

  test('not a web URL → none', () => {
    expect(cleanPageUrl('jane@example.com')).toBeUndefined();
    expect(cleanPageUrl('javascript:alert(1)')).toBeUndefined();
  });

  test('Meta never gets the email of a page URL as event_source_url', () => {
    const wire = toMetaEvent(
      eventOf({ email: 'a@b.co', pageUrl: 'https://shop.example/thanks?email=jane%40example.com', userAgent: 'UA' }),
    );
    expect(wire.event_source_url).toBe('https://shop.example/thanks');
  });
});

describe('warehouse rows take the new columns too', () => {
  test('city, state, postal code, country, date of birth and gender are hashed; the default country reads the phone', () => {
    const mapped = rowToEvent(
      { t: '2026-11-25T10:00:00Z', p: '(650) 555-1212', c: 'New York', s: 'NY', z: '10001', cc: 'US', d: { value: '1990-01-15' }, g: 'F' },
      {
        columns: { eventTime: 't', phone: 'p', city: 'c', state: 's', postalCode: 'z', countryCode: 'cc', dateOfBirth: 'd', gender: 'g' },
        eventName: 'Lead',
        defaultCountry: 'US',
        defaultConsent: { adUserData: 'granted' },
      },
      'bigquery:d1',
    );
    expect(mapped.ok).toBe(true);
    const event = (mapped as { event: ConversionEvent }).event;
    expect(event.user).toMatchObject({
      phoneE164: sha256Hex('+16505551212'),
      city: sha256Hex('newyork'),
      state: sha256Hex('ny'),
      postalCode: sha256Hex('10001'),
      countryCode: sha256Hex('us'),
      dateOfBirth: sha256Hex('19900115'),
      gender: sha256Hex('f'),
    });
    expect(event.consent).toEqual({ adUserData: 'granted' });
  });
});
