/** @jest-environment node */
import { conversionEventSchema } from '@/lib/shared/conversions/event';
import type { StripeCharge } from '@/lib/server/connectors/stripe/charges';
import { sha256Hex } from '@/lib/server/sha256';
import { chargeToEvent, chargeValue, nextCursor, unseenCharges } from '@/lib/server/delivery/payments';

const charge = (id: string, created: number, overrides: Partial<StripeCharge> = {}): StripeCharge => ({
  id,
  object: 'charge',
  amount: 4999,
  currency: 'usd',
  status: 'succeeded',
  paid: true,
  captured: true,
  refunded: false,
  created,
  billing_details: { email: 'Ada@Example.com', name: 'Ada King Lovelace', phone: '+44 20 7946 0018' },
  receipt_email: null,
  metadata: {},
  livemode: false,
  ...overrides,
});

describe('a charge as a conversion event', () => {
  test('the charge id, Purchase, its time, value and currency; identifiers hashed, the address masked', () => {
    const event = chargeToEvent(charge('ch_1', 1_800_000_000));
    expect(event).toEqual({
      id: 'ch_1',
      name: 'Purchase',
      time: 1_800_000_000,
      value: 49.99,
      currency: 'USD',
      user: {
        email: sha256Hex('ada@example.com'),
        phone: sha256Hex('442079460018'),
        phoneE164: sha256Hex('+442079460018'),
        firstName: sha256Hex('ada'),
        lastName: sha256Hex('king lovelace'),
      },
      clickIds: {},
      context: { actionSource: 'system_generated' },
      maskedEmail: 'a***@example.com',
    });
    expect(conversionEventSchema.safeParse(event).success).toBe(true);
  });

  test('amounts in the smallest unit: cents, yen as is, thousandths of a dinar', () => {
    expect(chargeValue(4999, 'usd')).toBe(49.99);
    expect(chargeValue(5000, 'jpy')).toBe(5000);
    expect(chargeValue(120000, 'krw')).toBe(120000);
    expect(chargeValue(12345, 'kwd')).toBe(12.345);
    expect(chargeValue(100, 'isk')).toBe(1);
  });

  test('the receipt email when the billing details have none; no identifier at all when neither', () => {
    const receipt = chargeToEvent(
      charge('ch_2', 1, { billing_details: { email: null, name: null, phone: null }, receipt_email: 'receipt@example.com' }),
    );
    expect(receipt.user).toEqual({ email: sha256Hex('receipt@example.com') });
    const none = chargeToEvent(charge('ch_3', 1, { billing_details: null, receipt_email: null }));
    expect(none.user).toEqual({});
    expect(none.maskedEmail).toBeUndefined();
  });

  test('click ids from the metadata, fbclid made into fbc at the payment time, too long ones left out', () => {
    const event = chargeToEvent(
      charge('ch_4', 1_800_000_000, {
        metadata: { gclid: 'G-1', fbclid: 'IwAR0abc', msclkid: 'm1', wbraid: 'x'.repeat(201), note: 'kept out' },
      }),
    );
    expect(event.clickIds).toEqual({ gclid: 'G-1', fbc: 'fb.1.1800000000000.IwAR0abc', msclkid: 'm1' });
    expect(chargeToEvent(charge('ch_5', 1, { metadata: { fbclid: 'a', fbc: 'fb.1.5.b' } })).clickIds).toEqual({ fbc: 'fb.1.5.b' });
  });
});

describe('the cursor', () => {
  const listing = (charges: StripeCharge[], through: number | null = null) => ({ charges, through });

  test('a first listing: every charge is new; the cursor holds the newest second and its charges', () => {
    const charges = [charge('a', 100), charge('b', 101), charge('c', 101)];
    expect(unseenCharges(charges, null)).toEqual(charges);
    expect(nextCursor(null, 90, listing(charges))).toEqual({ created: 101, ids: ['b', 'c'] });
  });

  test('a charge made in the cursor second after it was read is new; those it holds are not', () => {
    const cursor = { created: 101, ids: ['b', 'c'] };
    const again = [charge('b', 101), charge('c', 101), charge('d', 101), charge('e', 102)];
    expect(unseenCharges(again, cursor).map((c) => c.id)).toEqual(['d', 'e']);
    expect(nextCursor(cursor, 101, listing(again.slice(0, 3)))).toEqual({ created: 101, ids: ['b', 'c', 'd'] });
    expect(nextCursor(cursor, 101, listing(again))).toEqual({ created: 102, ids: ['e'] });
  });

  test('nothing listed keeps the cursor, or starts it where the reading started', () => {
    expect(nextCursor({ created: 5, ids: ['x'] }, 5, listing([]))).toEqual({ created: 5, ids: ['x'] });
    expect(nextCursor(null, 42, listing([]))).toEqual({ created: 42, ids: [] });
  });

  test('a narrowed listing moves the cursor to the end of the stretch it covered, even past its newest charge', () => {
    expect(nextCursor({ created: 100, ids: ['a'] }, 100, listing([charge('a', 100)], 150))).toEqual({ created: 150, ids: [] });
    expect(nextCursor(null, 100, listing([charge('a', 120), charge('b', 150)], 150))).toEqual({ created: 150, ids: ['b'] });
  });
});
