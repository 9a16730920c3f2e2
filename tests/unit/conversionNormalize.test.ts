/** @jest-environment node */
import {
  cleanPageUrl,
  deriveEventId,
  hashIdentifier,
  hashPhone,
  maskEmail,
  normalizeEmail,
  normalizeName,
  parsePhone,
  phoneForMeta,
  toConversionEvent,
} from '@/lib/server/delivery/normalize';
import { sha256Hex } from '@/lib/server/sha256';
import { submittedEventSchema } from '@/lib/shared/schemas/submissions';

// Meta's documented examples (Conversions API, customer information parameters).
describe('normalising and hashing identifiers', () => {
  test('email: trimmed, lowercased, SHA-256 hex (Meta: John_Smith@gmail.com)', () => {
    expect(hashIdentifier('  John_Smith@gmail.com ', normalizeEmail)).toBe(
      '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
    );
  });

  test('phone: digits with the country code for Meta (12345678901), E.164 with its + for Google', () => {
    const e164 = (value: string, country?: string) => {
      const parsed = parsePhone(value, country);
      return 'e164' in parsed ? parsed.e164 : parsed.problem;
    };
    expect(e164('+1 (650) 555-1212')).toBe('+16505551212');
    expect(e164('001 650 555 1212')).toBe('+16505551212');
    expect(e164('(650) 555-1212', 'US')).toBe('+16505551212');
    expect(e164('(650) 555-1212')).toBe('no_country');
    expect(e164('12', 'US')).toBe('unreadable');
    expect(phoneForMeta('+16505551212')).toBe('16505551212');
    expect(sha256Hex(phoneForMeta(e164('+1 234-567-8901')))).toBe('254aa248acb47dd654ca3ea53f48c2c26d641d23d7e2e93a1ec56258df7674c4');
  });

  test('a phone is parsed once per value and default country: a repeat gives the same hashes, another country its own', () => {
    const first = hashPhone('(650) 555-1212', 'US');
    expect(first).toEqual({ phone: sha256Hex('16505551212'), phoneE164: sha256Hex('+16505551212') });
    expect(hashPhone('(650) 555-1212', 'US')).toEqual(first);
    // The same digits read in another country are another number; without a country, none.
    expect(hashPhone('(650) 555-1212', 'GB')).not.toEqual(first);
    expect(hashPhone('(650) 555-1212')).toEqual({ problem: 'no_country' });
    expect(hashPhone('(650) 555-1212', 'US')).toEqual(first);
  });

  test('a page URL is cleaned the same way each time it comes', () => {
    const url = 'https://shop.example/thanks?email=jane%40example.com&utm_source=ads#top';
    expect(cleanPageUrl(url)).toBe('https://shop.example/thanks?utm_source=ads');
    expect(cleanPageUrl(url)).toBe('https://shop.example/thanks?utm_source=ads');
    expect(cleanPageUrl('not a url')).toBeUndefined();
    expect(cleanPageUrl('not a url')).toBeUndefined();
  });

  test('names: lowercase without punctuation, inner spaces kept (one), other scripts kept', () => {
    expect(normalizeName(" O'Brien-Smith ")).toBe('obriensmith');
    expect(normalizeName('Zoë')).toBe('zoë');
    expect(normalizeName('Mary Ann')).toBe('mary ann');
    expect(normalizeName('  Mary   Ann ')).toBe('mary ann');
  });

  test('a value that already is a SHA-256 is not hashed again (only lowercased)', () => {
    const hash = sha256Hex('joe@example.com');
    expect(hashIdentifier(hash.toUpperCase(), normalizeEmail)).toBe(hash);
  });

  test('an empty value after normalising sends nothing', () => {
    expect(hashIdentifier(' .- ', normalizeName)).toBeUndefined();
  });

  test('the log shows a masked email, never the address or its hash', () => {
    expect(maskEmail(' John.Smith@Example.com')).toBe('j***@example.com');
    expect(maskEmail(sha256Hex('a@b.c'))).toBeUndefined();
  });
});

describe('the queued event', () => {
  const receivedAt = new Date('2026-11-23T10:00:00Z');
  const parse = (input: unknown) => submittedEventSchema.parse(input);

  test('holds no clear personal value: hashes, click ids and context only', () => {
    const event = toConversionEvent(
      parse({
        event: 'Lead',
        email: 'Jane@Example.com',
        phone: '+44 20 7946 0958',
        firstName: 'Jane',
        gclid: 'Cj0abc',
        fbclid: 'IwAR1',
        pageUrl: 'https://shop.example/thanks',
      }),
      { source: 'app:a1', receivedAt, ip: '203.0.113.9', userAgent: 'Mozilla/5.0' },
    );
    const text = JSON.stringify(event);
    expect(text).not.toMatch(/jane@example\.com|7946|Jane/i);
    expect(event.user.email).toBe(sha256Hex('jane@example.com'));
    expect(event.user.phone).toBe(sha256Hex('442079460958'));
    expect(event.clickIds).toEqual({ gclid: 'Cj0abc', fbc: `fb.1.${receivedAt.getTime()}.IwAR1` });
    expect(event.context).toEqual({
      ip: '203.0.113.9',
      userAgent: 'Mozilla/5.0',
      pageUrl: 'https://shop.example/thanks',
      actionSource: 'website',
    });
    expect(event.maskedEmail).toBe('j***@example.com');
    expect(event.time).toBe(receivedAt.getTime() / 1000);
  });

  test("the caller's event id is kept", () => {
    expect(toConversionEvent(parse({ event: 'Lead', eventId: 'order-42' }), { source: 'app:a1', receivedAt }).id).toBe('order-42');
  });

  test('without one, the id is derived from the content: a retry later is the same event, another payload or app is not', () => {
    const payload = { event: 'Lead', email: 'jane@example.com', fbclid: 'IwAR1' };
    const first = toConversionEvent(parse(payload), { source: 'app:a1', receivedAt });
    const retry = toConversionEvent(parse({ ...payload, email: ' JANE@example.com' }), {
      source: 'app:a1',
      receivedAt: new Date(receivedAt.getTime() + 60_000),
    });
    expect(retry.id).toBe(first.id);
    expect(toConversionEvent(parse({ ...payload, event: 'Purchase' }), { source: 'app:a1', receivedAt }).id).not.toBe(first.id);
    expect(toConversionEvent(parse(payload), { source: 'app:a2', receivedAt }).id).not.toBe(first.id);
    expect(first.id).toMatch(/^sb_[0-9a-f]{32}$/);
  });

  test('derived ids do not depend on key order', () => {
    expect(deriveEventId('s', { a: 1, b: { c: 2, d: 3 } })).toBe(deriveEventId('s', { b: { d: 3, c: 2 }, a: 1 }));
  });
});

describe('the submission schema', () => {
  const errors = (input: unknown) => {
    const result = submittedEventSchema.safeParse(input);
    return result.success ? {} : Object.fromEntries(result.error.issues.map((issue) => [issue.path.join('.'), issue.message]));
  };

  test('names the field that is wrong', () => {
    expect(errors({ event: 'Lead', email: 'not-an-email' })).toEqual({ email: 'Not an email address (or its SHA-256 hash)' });
    expect(errors({ event: 'Lead', value: 10 })).toEqual({ currency: 'Give the currency of the value' });
    expect(errors({ event: 'Lead', occurredAt: 'yesterday' })).toHaveProperty('occurredAt');
    expect(errors({ event: 'Lead', surprise: 1 })).toEqual({});
    expect(errors({ event: 'Lead', occurredAt: '1960-01-01T00:00:00Z' })).toEqual({ occurredAt: 'A date-time from 1970-01-01 on' });
    expect(errors({ event: 'Lead', countryCode: 'USA' })).toHaveProperty('countryCode');
    expect(errors({ event: 'Lead', dateOfBirth: '1990-02-30' })).toHaveProperty('dateOfBirth');
    expect(errors({ event: 'Lead', gender: 'x' })).toHaveProperty('gender');
    expect(errors({ event: 'Lead', consent: { adUserData: 'yes' } })).toHaveProperty(['consent.adUserData']);
    expect(errors({})).toHaveProperty('event');
  });

  test('takes a hashed email as it is', () => {
    expect(errors({ event: 'Lead', email: sha256Hex('a@b.co') })).toEqual({});
  });
});
