import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { Consent, ConversionEvent, Withheld } from '@/lib/shared/conversions/event';
import type { SubmittedEvent } from '@/lib/shared/schemas/submissions';
import { ADDRESS_AS_ONE_IDENTIFIER, inWords } from '@/lib/shared/integrations/platforms';
import { sha256Hex } from '@/lib/server/sha256';

/**
 * Personal identifiers are normalised by each platform's own rule, then SHA-256 hashed, before
 * anything is stored or queued (docs/MATCH_KEYS.md says which document each rule comes from). A value
 * that already is a 64-hex SHA-256 is passed through, lowercased, into every form: the caller then
 * answers for the platform's normalisation. Click ids, IP and user agent are never hashed.
 */

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
export const isSha256 = (value: string) => SHA256_HEX.test(value.trim());

/** Email for Meta and Microsoft: trimmed and lowercased. */
export const normalizeEmail = (value: string) => value.trim().toLowerCase();

/**
 * Email for Google (Data Manager's formatting guide): lowercased, every whitespace removed; for
 * gmail.com and googlemail.com also the dots of the local part and anything from its "+".
 */
export function normalizeEmailForGoogle(value: string): string {
  const email = value.replace(/\s/g, '').toLowerCase();
  const at = email.lastIndexOf('@');
  if (at < 1) return email;
  const domain = email.slice(at + 1);
  if (domain !== 'gmail.com' && domain !== 'googlemail.com') return email;
  const local = email.slice(0, at).split('+')[0]!.replace(/\./g, '');
  return `${local}@${domain}`;
}

/** Why a phone could not be read, in the words of the delivery log. */
export type PhoneProblem = 'no_country' | 'unreadable';

/**
 * A phone in E.164 ("+16505551212"), parsed with libphonenumber: a number written with "+" or "00"
 * carries its country; one without is read in the given default country (the event's own country
 * code, else the source's). Without either, or when it cannot be a number, the problem instead.
 */
export function parsePhone(value: string, defaultCountry?: string): { e164: string } | { problem: PhoneProblem } {
  const trimmed = value.trim();
  const international = trimmed.replace(/^00/, '+');
  const hasCountry = international.startsWith('+');
  if (!hasCountry && !defaultCountry) return { problem: 'no_country' };
  const parsed = parsePhoneNumberFromString(international, hasCountry ? undefined : (defaultCountry as CountryCode));
  if (!parsed || !parsed.isPossible()) return { problem: 'unreadable' };
  return { e164: parsed.number };
}

/** Phone for Meta: E.164 digits with the country code, without the "+". */
export const phoneForMeta = (e164: string) => e164.replace(/^\+/, '');

/** A phone's two hashed forms (Meta's digits, E.164 with its +), or why it could not be read. */
type HashedPhone = { phone: string; phoneE164: string } | { problem: PhoneProblem };

/**
 * Parsed and hashed phones of this instance, by the SHA-256 of the default country and the value as given:
 * libphonenumber's parse is most of an event's hashing, and one person's or one form's number recurs. Kept by
 * hash, never in clear; at most MAX_PARSED_PHONES, all dropped when full (as ingest's key caches are).
 */
const parsedPhones = new Map<string, HashedPhone>();
const MAX_PARSED_PHONES = 10_000;

/** parsePhone then both hashes, once per distinct value and default country (the same answer as doing it each time). */
export function hashPhone(value: string, defaultCountry?: string): HashedPhone {
  const key = sha256Hex(`${defaultCountry ?? ''}\n${value}`);
  const known = parsedPhones.get(key);
  if (known) return known;
  const parsed = parsePhone(value, defaultCountry);
  const hashed: HashedPhone =
    'e164' in parsed ? { phone: sha256Hex(phoneForMeta(parsed.e164)), phoneE164: sha256Hex(parsed.e164) } : parsed;
  if (parsedPhones.size >= MAX_PARSED_PHONES) parsedPhones.clear();
  parsedPhones.set(key, hashed);
  return hashed;
}

/**
 * Names (Meta's rule, which Google's protos share): lowercase, without punctuation or symbols, runs of
 * whitespace made one space, trimmed: "Mary  Ann" → "mary ann". Letters of any script kept (UTF-8).
 */
export const normalizeName = (value: string) =>
  value
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

/** City and state for Meta: lowercase, without spaces, punctuation, symbols or digits ("New York" → "newyork", "CA" → "ca"). */
export const normalizePlace = (value: string) =>
  value
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}\s\d]/gu, '');

/** Postal code for Meta: lowercase, no spaces, the part before a dash (a US ZIP+4 gives its 5 digits). */
export const normalizePostalCode = (value: string) => value.toLowerCase().replace(/\s/g, '').split('-')[0]!;

/** Country for Meta: the ISO 3166-1 alpha-2 code, lowercase. */
export const normalizeCountry = (value: string) => value.trim().toLowerCase();

/** Date of birth for Meta: YYYYMMDD from YYYY-MM-DD. */
export const normalizeDateOfBirth = (value: string) => value.trim().replace(/-/g, '');

/** Gender for Meta: f or m. */
export const normalizeGender = (value: string) => {
  const gender = value.trim().toLowerCase();
  return gender === 'female' ? 'f' : gender === 'male' ? 'm' : gender;
};

/** The hash of a normalised value; an existing SHA-256 hex is not hashed again; empty → undefined. */
export function hashIdentifier(value: string | undefined, normalize: (value: string) => string): string | undefined {
  if (value === undefined) return undefined;
  if (isSha256(value)) return value.trim().toLowerCase();
  const normalized = normalize(value);
  return normalized ? sha256Hex(normalized) : undefined;
}

/** A person as a source gives them: each value in clear or already SHA-256 hex. */
export interface PersonInput {
  email?: string;
  phone?: string;
  firstName?: string;
  lastName?: string;
  externalId?: string;
  city?: string;
  state?: string;
  postalCode?: string;
  countryCode?: string;
  dateOfBirth?: string;
  gender?: string;
}

/** What a source sets for its events: the country of numbers written without one, and consent when the event says nothing. */
export interface SourceDefaults {
  defaultCountry?: string;
  defaultConsent?: Consent;
  /** How the delivery log names the source: "app", "payment account", "source". */
  sourceLabel?: string;
}

/**
 * A person → the hashed identifiers under every platform's rule, Google's address parts in clear
 * (only when all four are there), and what was withheld and why. Nothing raw leaves this function.
 */
export function hashPerson(
  input: PersonInput,
  defaults: SourceDefaults = {},
): { user: ConversionEvent['user']; address?: ConversionEvent['address']; withheld: Withheld[] } {
  const withheld: Withheld[] = [];
  const email = hashIdentifier(input.email, normalizeEmail);
  // Google's form is hashed only when it differs from Meta's (a Gmail address, inner whitespace).
  const emailGoogle =
    input.email !== undefined && !isSha256(input.email) && normalizeEmailForGoogle(input.email) !== normalizeEmail(input.email)
      ? hashIdentifier(input.email, normalizeEmailForGoogle)
      : undefined;
  let phone: string | undefined;
  let phoneE164: string | undefined;
  if (input.phone !== undefined && input.phone.trim() !== '') {
    if (isSha256(input.phone)) {
      phone = phoneE164 = input.phone.trim().toLowerCase();
    } else {
      const country = input.countryCode && !isSha256(input.countryCode) ? input.countryCode.trim().toUpperCase() : defaults.defaultCountry;
      const parsed = hashPhone(input.phone, country);
      if ('phone' in parsed) {
        ({ phone, phoneE164 } = parsed);
      } else {
        withheld.push({
          field: 'phone',
          reason:
            parsed.problem === 'no_country'
              ? `Phone not sent: no country code and the ${defaults.sourceLabel ?? 'source'} has no default country`
              : 'Phone not sent: it is not a phone number (too short, too long or not digits)',
        });
      }
    }
  }
  const user = defined({
    email,
    emailGoogle,
    phone,
    phoneE164,
    firstName: hashIdentifier(input.firstName, normalizeName),
    lastName: hashIdentifier(input.lastName, normalizeName),
    externalId: hashIdentifier(input.externalId, (value) => value.trim()),
    city: hashIdentifier(input.city, normalizePlace),
    state: hashIdentifier(input.state, normalizePlace),
    postalCode: hashIdentifier(input.postalCode, normalizePostalCode),
    countryCode: hashIdentifier(input.countryCode, normalizeCountry),
    dateOfBirth: hashIdentifier(input.dateOfBirth, normalizeDateOfBirth),
    gender: hashIdentifier(input.gender, normalizeGender),
  }) as ConversionEvent['user'];
  // Google's address: hashed names, region and postal code in clear; all four or none.
  const region = input.countryCode && !isSha256(input.countryCode) ? input.countryCode.trim().toUpperCase() : undefined;
  const postal = input.postalCode && !isSha256(input.postalCode) ? input.postalCode.trim().slice(0, 20) : undefined;
  let address: ConversionEvent['address'];
  if (user.firstName && user.lastName && region && /^[A-Z]{2}$/.test(region) && postal) {
    address = { regionCode: region, postalCode: postal };
  } else if (input.countryCode !== undefined || input.postalCode !== undefined) {
    withheld.push({
      field: 'address',
      reason: `Address not sent to ${inWords(ADDRESS_AS_ONE_IDENTIFIER)}: it takes the first and last name, the country code and the postal code (in clear) together`,
      platforms: [...ADDRESS_AS_ONE_IDENTIFIER],
    });
  }
  return { user, ...(address ? { address } : {}), withheld };
}

/** The consent of an event: what it says, else the source's default, question by question; undefined when neither says. */
export function consentOf(given: Consent | undefined, defaults: Consent | undefined): Consent | undefined {
  const consent = defined({
    adUserData: given?.adUserData ?? defaults?.adUserData,
    adPersonalization: given?.adPersonalization ?? defaults?.adPersonalization,
  }) as Consent;
  return Object.keys(consent).length > 0 ? consent : undefined;
}

/** Query parameters a page URL keeps whatever they hold: campaign tags and click ids. */
const MARKETING_PARAMETER =
  /^(utm_[a-z_]+|gclid|gbraid|wbraid|gclsrc|dclid|fbclid|msclkid|ttclid|twclid|li_fat_id|epik|rdt_cid|sccid|irclickid|_gl|mc_cid|mc_eid)$/i;
/** Names of parameters that carry a person: email, phone, names, address, birth date, secrets. */
const PERSONAL_NAME =
  /e-?mail|phone|tel$|^tel|mobile|cell|name|first|last|surname|given|family|address|street|city|zip|postal|birth|dob|ssn|passw|token|secret|user|customer|contact/i;
const EMAIL_LIKE = /[^\s@/?#&=]+@[^\s@/?#&=]+\.[^\s@/?#&=]+/;
const PHONE_LIKE = /^\+?[\d\s().-]{7,}$/;

/** Does a parameter's value look like a person's email or phone number? */
function personalValue(value: string): boolean {
  if (EMAIL_LIKE.test(value)) return true;
  return PHONE_LIKE.test(value.trim()) && value.replace(/\D/g, '').length >= 7;
}

/**
 * A page URL without the personal data it may carry (a form that GETs, a link in an email): query
 * parameters whose name or value look personal are dropped, campaign tags and click ids kept; the
 * fragment and any user:password are dropped, an email in the path is masked. Not a URL → undefined.
 */
export function cleanPageUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  // A site's events come from few pages: each distinct URL is cleaned once (kept by hash, as phones are).
  const key = sha256Hex(value);
  const known = cleanedUrls.get(key);
  if (known !== undefined) return known ?? undefined;
  const cleaned = cleanUrl(value);
  if (cleanedUrls.size >= MAX_CLEANED_URLS) cleanedUrls.clear();
  cleanedUrls.set(key, cleaned ?? null);
  return cleaned;
}

/** Cleaned page URLs by the SHA-256 of the URL as given; null: not a URL. */
const cleanedUrls = new Map<string, string | null>();
const MAX_CLEANED_URLS = 10_000;

function cleanUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.username = '';
  url.password = '';
  url.hash = '';
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Kept encoded.
  }
  if (EMAIL_LIKE.test(path)) url.pathname = path.replace(new RegExp(EMAIL_LIKE.source, 'g'), 'redacted');
  const kept = new URLSearchParams();
  for (const [name, parameter] of url.searchParams) {
    if (MARKETING_PARAMETER.test(name)) kept.append(name, parameter);
    else if (!PERSONAL_NAME.test(name) && !personalValue(parameter)) kept.append(name, parameter);
  }
  url.search = kept.toString();
  return url.toString().slice(0, 2000);
}

/** j***@example.com: enough for a marketer to recognise a row, never the address. */
export function maskEmail(value: string | undefined): string | undefined {
  if (!value || SHA256_HEX.test(value.trim())) return undefined;
  const email = normalizeEmail(value);
  const at = email.lastIndexOf('@');
  if (at < 1) return undefined;
  return `${email[0]}***${email.slice(at)}`;
}

/** Drops undefined values, so derived ids and stored events do not depend on absent keys. */
export function defined<T extends Record<string, unknown>>(record: T): Partial<T> {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value !== undefined && value !== '') kept[key] = value;
  }
  return kept as Partial<T>;
}

/** A JSON text with sorted keys: the same content always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The event id: the caller's, else derived from what was submitted (after hashing), so a client
 * that retries the same request sends the same event, and the platforms deduplicate it.
 */
export function deriveEventId(source: string, content: Record<string, unknown>): string {
  return `sb_${sha256Hex(`${source}\n${canonical(content)}`).slice(0, 32)}`;
}

export interface IngestContext extends SourceDefaults {
  /** What the event came from ("app:{id}"): two apps sending the same payload are two events. */
  source: string;
  receivedAt: Date;
  ip?: string;
  userAgent?: string;
}

/** A submitted event → the hashed event that is queued. Nothing raw survives this function. */
export function toConversionEvent(input: SubmittedEvent, context: IngestContext): ConversionEvent {
  const { user, address, withheld } = hashPerson(input, context);
  const clickIds = defined({
    gclid: input.gclid,
    gbraid: input.gbraid,
    wbraid: input.wbraid,
    fbc: input.fbc ?? (input.fbclid ? `fb.1.${context.receivedAt.getTime()}.${input.fbclid}` : undefined),
    fbp: input.fbp,
    msclkid: input.msclkid,
    li_fat_id: input.li_fat_id,
    ttclid: input.ttclid,
    ttp: input.ttp,
  });
  const value = input.value ?? null;
  const currency = input.currency ?? null;
  const time = input.occurredAt ? Math.floor(Date.parse(input.occurredAt) / 1000) : null;
  const pageUrl = cleanPageUrl(input.pageUrl);
  const consent = consentOf(input.consent, context.defaultConsent);
  // What identifies the event as submitted: the hashed form, never the clear one. fbclid rather than
  // the fbc built from it, whose timestamp is ours.
  const content = {
    name: input.event,
    time,
    value,
    currency,
    user,
    clickIds: defined({ ...clickIds, fbc: input.fbc, fbclid: input.fbclid }),
    pageUrl,
  };
  return {
    id: input.eventId ?? deriveEventId(context.source, content),
    name: input.event,
    time: time ?? Math.floor(context.receivedAt.getTime() / 1000),
    value,
    currency,
    user,
    ...(address ? { address } : {}),
    ...(consent ? { consent } : {}),
    ...(input.limitedDataUse ? { limitedDataUse: true } : {}),
    ...(withheld.length > 0 ? { withheld } : {}),
    clickIds,
    context: defined({
      ip: input.ip ?? context.ip,
      userAgent: input.userAgent ?? context.userAgent,
      pageUrl,
      actionSource: input.actionSource ?? (pageUrl ? 'website' : 'system_generated'),
    }) as ConversionEvent['context'],
    ...defined({ maskedEmail: maskEmail(input.email) }),
  };
}
