import { createHash } from 'node:crypto';
import { isValidPhoneNumber, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { emailGoogle, googleAddressKey } from '@/sandbox/google_ads/matching';
import { createMatchLedger, knownHash, personOf } from '@/sandbox/matching';
import { phoneMeta, placeMeta, zipMeta } from '@/sandbox/meta_ads/matching';
import { emailTrimmedLowercase, nameForm, phoneE164 } from '@/sandbox/normalise';
import { KNOWN_PEOPLE } from '@/sandbox/people';

// The sandbox's judges of normalisation: each platform's documented form of a person, and nothing else, matches.
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
// Meta's official business SDK, the oracle of Meta's forms where it follows the documented rule.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ServerSideUtils } = require('facebook-nodejs-business-sdk') as {
  ServerSideUtils: { normalizeAndHash: (input: string, field: string) => string | null };
};

describe('the directory of known people', () => {
  test('120 people in messy spellings, each phone a real number of its country whatever way it is typed', () => {
    expect(KNOWN_PEOPLE).toHaveLength(120);
    expect(new Set(KNOWN_PEOPLE.map((person) => emailTrimmedLowercase(person.email))).size).toBe(120);
    const typed = KNOWN_PEOPLE.map((person) => person.phone);
    expect(typed).toEqual(expect.arrayContaining(['+1 (650) 253-0000', '0044 20 7946 0004']));
    expect(typed.some((phone) => /^\(\d{3}\) \d{3}-\d{4}$/.test(phone))).toBe(true);
    expect(KNOWN_PEOPLE.map((person) => person.firstName.trim())).toEqual(expect.arrayContaining(['Mary Ann', 'JOSÉ']));
    for (const person of KNOWN_PEOPLE) {
      expect(isValidPhoneNumber(person.phoneE164)).toBe(true);
      const international = person.phone.trim().replace(/^00/, '+');
      const country = international.startsWith('+') ? undefined : (person.countryCode.trim().toUpperCase() as CountryCode);
      expect(parsePhoneNumberFromString(international, country)?.number).toBe(person.phoneE164);
      expect(person.msclkid).toMatch(/^[0-9a-f]{32}$/);
    }
  });
});

describe("each platform's documented form", () => {
  test("Google's formatting guide: Gmail without dots or +tag, other domains as they are; phones in E.164 with +", () => {
    expect(emailGoogle('cloudy.sanfrancisco+shopping@gmail.com')).toBe('cloudysanfrancisco@gmail.com');
    expect(emailGoogle('user.name+NYC@Example.com')).toBe('user.name+nyc@example.com');
    expect(emailGoogle(' Jane.Doe+Promo@GMail.com ')).toBe('janedoe@gmail.com');
    expect(emailGoogle('Jane.Doe@googlemail.com')).toBe('janedoe@googlemail.com');
    expect(phoneE164('+1 (800) 555-0100')).toBe('+18005550100');
  });

  test("Meta's forms agree with Meta's business SDK where the SDK follows the documented rule", () => {
    const oracle = (value: string, field: string) => ServerSideUtils.normalizeAndHash(value, field);
    for (const person of KNOWN_PEOPLE.slice(0, 40)) {
      expect(sha256(emailTrimmedLowercase(person.email))).toBe(oracle(person.email, 'em'));
      expect(sha256(phoneMeta(person.phoneE164))).toBe(oracle(person.phoneE164, 'ph'));
    }
    expect(sha256(nameForm('Mary Ann'))).toBe(oracle('Mary Ann', 'fn'));
    expect(sha256(zipMeta('94043-1351', 'US'))).toBe(oracle('94043-1351', 'zp'));
    expect(sha256(placeMeta('New York'))).toBe(oracle('New York', 'ct'));
  });

  test('the vectors of issue 28: Meta and Google differ, and names keep their inner space', () => {
    expect(phoneMeta('+16505551212')).toBe('16505551212');
    expect(phoneE164('+16505551212')).toBe('+16505551212');
    expect(nameForm('  Mary   Ann ')).toBe('mary ann');
    expect(nameForm("O'Brien")).toBe('obrien');
    expect(nameForm('JOSÉ')).toBe('josé');
    expect(placeMeta('St. Louis')).toBe('stlouis');
    expect(zipMeta('SW1A 1AA', 'GB')).toBe('sw1a1aa');
  });
});

describe('the judges', () => {
  const person = KNOWN_PEOPLE.find((candidate) => /gmail/i.test(candidate.email) && /\./.test(candidate.email.split('@')[0]!))!;

  test("a correctly normalised hash matches; Meta's form sent to Google does not, nor Google's to Meta", () => {
    const metaPhone = sha256(phoneMeta(person.phoneE164));
    const googlePhone = sha256(phoneE164(person.phoneE164));
    expect(personOf('meta', 'ph', metaPhone)).toBe(person.id);
    expect(personOf('google', 'phone_number', googlePhone)).toBe(person.id);
    expect(personOf('google', 'phone_number', metaPhone)).toBeNull();
    expect(personOf('meta', 'ph', googlePhone)).toBeNull();
    // Gmail: Google wants it without dots and +tag, Meta and Microsoft only trimmed and lowercased.
    expect(personOf('google', 'email_address', sha256(emailGoogle(person.email)))).toBe(person.id);
    expect(personOf('google', 'email_address', sha256(emailTrimmedLowercase(person.email)))).toBeNull();
    expect(personOf('meta', 'em', sha256(emailTrimmedLowercase(person.email)))).toBe(person.id);
    expect(personOf('microsoft', 'HashedEmailAddress', sha256(emailTrimmedLowercase(person.email)))).toBe(person.id);
    expect(personOf('microsoft', 'HashedPhoneNumber', googlePhone)).toBe(person.id);
    expect(personOf('microsoft', 'HashedPhoneNumber', metaPhone)).toBeNull();
    // "Mary Ann" without its space is nobody.
    const maryAnn = KNOWN_PEOPLE.find((candidate) => nameForm(candidate.firstName) === 'mary ann')!;
    expect(personOf('meta', 'fn', sha256('mary ann'))).not.toBeNull();
    expect(personOf('meta', 'fn', sha256('maryann'))).toBeNull();
    expect(knownHash('meta', 'fn', maryAnn.id)).toBe(sha256('mary ann'));
  });

  test("Google's address: hashed names with region and postal code in clear; a US ZIP+4 is read by its 5 digits", () => {
    const american = KNOWN_PEOPLE.find((candidate) => candidate.postalCode === '94043-1351')!;
    const address = {
      given_name: sha256(nameForm(american.firstName)),
      family_name: sha256(nameForm(american.lastName)),
      region_code: 'US',
      postal_code: '94043',
    };
    expect(personOf('google', 'address', googleAddressKey(address))).toBe(american.id);
    expect(personOf('google', 'address', googleAddressKey({ ...address, postal_code: '94043-1351' }))).toBe(american.id);
    expect(personOf('google', 'address', googleAddressKey({ ...address, given_name: sha256('nobody') }))).toBeNull();
  });

  test('the ledger counts events and identifiers per target: matched, unmatched, without identifiers', () => {
    const ledger = createMatchLedger();
    const good = { key: 'em', value: sha256(emailTrimmedLowercase(person.email)) };
    ledger.judge('meta', '555000111', 'Lead', [good]);
    ledger.judge('meta', '555000111', 'Lead', [good, { key: 'ph', value: sha256('16505550000') }]);
    ledger.judge('meta', '555000111', 'Purchase', [], ['fbp']);
    expect(ledger.total('meta', '555000111')).toMatchObject({
      events: 3,
      matched: 1,
      unmatched: 1,
      withoutIdentifiers: 1,
      keys: { em: { sent: 2, matched: 2 }, ph: { sent: 1, matched: 0 } },
      present: { fbp: 1 },
    });
    expect(
      ledger
        .list({ platform: 'meta' })
        .map((entry) => entry.eventName)
        .sort(),
    ).toEqual(['Lead', 'Purchase']);
  });
});
