/** @jest-environment node */
import {
  countDay,
  countedShare,
  dayOfHour,
  figureScope,
  isFinal,
  metaActionType,
  windowDays,
  type DayFigures,
  type ReconcileDay,
} from '@/lib/shared/conversions/reconciliation';
import { createConversionLedger } from '@/sandbox/conversions';
import { droppedAt } from '@/sandbox/counted';
import { createReporting } from '@/sandbox/reporting';

const figures = (overrides: Partial<DayFigures>): DayFigures => ({
  date: '2026-11-14',
  sent: 100,
  accepted: 100,
  platform: { received: null, attributed: null },
  final: true,
  ...overrides,
});

/** A stored day: what the platform received of what we sent. */
const day = (date: string, sent: number, received: number, final = true): ReconcileDay => ({
  date,
  sent,
  received,
  refused: 0,
  platform: { received: null, attributed: null },
  final,
  notes: [],
});

test('the window: 30 UTC days ending today, oldest first', () => {
  const days = windowDays(new Date('2026-11-25T21:00:00Z'));
  expect(days).toHaveLength(30);
  expect([days[0], days.at(-1)]).toEqual(['2026-10-27', '2026-11-25']);
});

test("a day is final once the platform's lag after its end has passed", () => {
  expect(isFinal('microsoft_ads', '2026-11-14', new Date('2026-11-15T05:59:00Z'))).toBe(false);
  expect(isFinal('microsoft_ads', '2026-11-14', new Date('2026-11-15T06:00:00Z'))).toBe(true);
  expect(isFinal('meta_ads', '2026-11-14', new Date('2026-11-15T23:00:00Z'))).toBe(false);
});

test("an account's days: the window ends on its today, our UTC hours fall on its days, a day is final after its own end", () => {
  // 02:00 UTC on Nov 26 is 21:00 on Nov 25 in New York (EST) and 11:00 on Nov 26 in Tokyo.
  const now = new Date('2026-11-26T02:00:00Z');
  expect(windowDays(now, 8, 'America/New_York')).toEqual([
    '2026-11-18',
    '2026-11-19',
    '2026-11-20',
    '2026-11-21',
    '2026-11-22',
    '2026-11-23',
    '2026-11-24',
    '2026-11-25',
  ]);
  expect(windowDays(now, 1, 'Asia/Tokyo')).toEqual(['2026-11-26']);
  expect(dayOfHour('2026-11-26T02', 'America/New_York')).toBe('2026-11-25');
  expect(dayOfHour('2026-11-26T05', 'America/New_York')).toBe('2026-11-26');
  expect(dayOfHour('2026-11-26T02')).toBe('2026-11-26');
  // New York's Nov 14 ends at 05:00 UTC on Nov 15 (EST): Microsoft's six hours later it is final.
  expect(isFinal('microsoft_ads', '2026-11-14', new Date('2026-11-15T10:59:00Z'), 'America/New_York')).toBe(false);
  expect(isFinal('microsoft_ads', '2026-11-14', new Date('2026-11-15T11:00:00Z'), 'America/New_York')).toBe(true);
  // The week of the account's days: New York's Nov 25 is in it at 02:00 UTC on Nov 26, Nov 17 is not.
  expect(countedShare([day('2026-11-17', 50, 0), day('2026-11-25', 10, 8)], now, 'America/New_York')).toEqual({
    sent: 10,
    received: 8,
    share: 0.8,
  });
});

const pixel = (count: number) => ({ count, scope: figureScope('meta_ads', 'received', { events: ['Purchase'], target: 'Shop pixel' })! });

test('the loss of a day: refused by the API, and what the platform proves never arrived, each said in words', () => {
  // Meta's pixel counted 88 Purchase server events from all its senders: at least 12 of our 100 never arrived.
  const lost = countDay('meta_ads', figures({ platform: { received: pixel(88), attributed: null } }), '2026-11-25');
  expect(lost).toMatchObject({ sent: 100, received: 88, refused: 0 });
  expect(lost.notes).toEqual([
    'At least 12 of the events Meta accepted never arrived: it counted 88 Purchase server events at the pixel, from all its server senders (this conversion, other conversions, other tools), fewer than the 100 this conversion sent alone. Look for a deduplication or pixel problem.',
  ]);
  const refused = countDay('google_ads', figures({ sent: 90, accepted: 80 }), '2026-11-25');
  expect(refused).toMatchObject({ sent: 90, received: 80, refused: 10 });
  expect(refused.notes).toEqual(['Google refused 10 of the 90 events we sent: the delivery log has the reason of each.']);
  expect(countDay('microsoft_ads', figures({ date: '2026-11-25', final: false }), '2026-11-25').notes).toEqual([
    'Microsoft records offline conversions 2–6 hours after upload: today is not final yet.',
  ]);
});

test("a platform's wider figure is never divided by ours: more than we sent says nothing, attribution is no loss", () => {
  // The pixel's 3,456 Purchase events of all its senders, and whatever the account attributed, beside our 2.
  const wide = countDay(
    'meta_ads',
    figures({
      sent: 2,
      accepted: 2,
      platform: {
        received: pixel(3456),
        attributed: { count: 3456, scope: figureScope('meta_ads', 'attributed', { events: ['Purchase'], target: 'Shop pixel' })! },
      },
    }),
    '2026-11-25',
  );
  expect(wide).toMatchObject({ sent: 2, received: 2, refused: 0, notes: [] });
  expect(wide.platform.received).toEqual(pixel(3456));
  // Google attributing 59 of 100 is not a loss: nothing to say about the day.
  const attributed = countDay('google_ads', figures({ platform: { received: null, attributed: { count: 59, scope: 'x' } } }), '2026-11-25');
  expect(attributed).toMatchObject({ received: 100, notes: [] });
  // Before the lag has passed, a pixel count under ours is not yet a loss.
  expect(countDay('meta_ads', figures({ final: false, platform: { received: pixel(50), attributed: null } }), '2026-11-25').received).toBe(
    100,
  );
});

test('the scope of each figure in the catalogue words; a target other conversions share says so', () => {
  expect(figureScope('meta_ads', 'received', { events: ['Purchase', 'Lead'], target: 'Shop pixel' })).toBe(
    'Purchase and Lead server events at the pixel, from all its server senders (this conversion, other conversions, other tools)',
  );
  expect(figureScope('google_ads', 'received', { events: [], target: 'Purchase' })).toBeNull();
  expect(figureScope('microsoft_ads', 'attributed', { events: [], target: 'Offline purchase', others: 2 })).toBe(
    'recorded in goal “Offline purchase”, from every conversion sent to it; 2 other conversions of yours send to this conversion goal too',
  );
});

test('the received share sums the final days of the last week only', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const days = [day('2026-11-10', 50, 0), day('2026-11-20', 10, 8), day('2026-11-25', 10, 0, false)];
  expect(countedShare(days, now)).toEqual({ sent: 10, received: 8, share: 0.8 });
});

test("Meta's action types; the sandbox's drops are spread evenly and the same every time", () => {
  expect(metaActionType('Purchase')).toBe('offsite_conversion.fb_pixel_purchase');
  expect(metaActionType('Signed up')).toBe('offsite_conversion.fb_pixel_custom');
  const dropped = Array.from({ length: 10 }, (_, index) => index).filter((index) => droppedAt(index, 0.2));
  expect(dropped).toEqual([4, 9]);
});

test("the sandbox's Google and Meta date what they counted by the account's day, at the reports' movable clock", () => {
  const ledger = createConversionLedger();
  ledger.record('google', '1234567890/tx-1', '9001', { transactionId: 'tx-1' }, 'first', { attributable: true });
  ledger.record('meta', '555000111|Purchase|ev-1', '555000111', { event_name: 'Purchase' });
  // Both arrived at 02:00 UTC on Nov 15: 21:00 on Nov 14 in New York.
  const sentAt = Date.parse('2026-11-15T02:00:00Z');
  for (const entry of [...ledger.list('google'), ...ledger.list('meta')]) entry.receivedAt = sentAt;
  const reporting = createReporting(ledger);
  reporting.set({ meta: { attributionLagHours: 0 } });

  reporting.clock.set('2026-11-15T03:00:00Z');
  expect(reporting.googleActions('1234567890', 'America/New_York').get('9001')).toEqual(new Map([['2026-11-14', 1]]));
  expect(reporting.metaAttributed(['555000111'], 'America/New_York').get('Purchase')).toEqual(new Map([['2026-11-14', 1]]));
  // Berlin is ahead of UTC: the same instant is its Nov 15.
  expect(reporting.googleActions('1234567890', 'Europe/Berlin').get('9001')).toEqual(new Map([['2026-11-15', 1]]));

  // Before it arrived, by the reports' clock, neither counts it.
  reporting.clock.set('2026-11-15T01:00:00Z');
  expect(reporting.googleActions('1234567890', 'America/New_York').get('9001')).toBeUndefined();
  expect(reporting.metaAttributed(['555000111'], 'America/New_York').get('Purchase')).toBeUndefined();
});
