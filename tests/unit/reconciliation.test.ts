/** @jest-environment node */
import {
  countedShare,
  dayOfHour,
  explainDay,
  isFinal,
  metaActionType,
  windowDays,
  type ReconcileDay,
} from '@/lib/shared/conversions/reconciliation';
import { createConversionLedger } from '@/sandbox/conversions';
import { droppedAt } from '@/sandbox/counted';
import { createReporting } from '@/sandbox/reporting';

const day = (overrides: Partial<ReconcileDay>): Omit<ReconcileDay, 'notes'> => ({
  date: '2026-11-14',
  received: 100,
  sent: 100,
  accepted: 100,
  platformReceived: null,
  attributed: 100,
  final: true,
  ...overrides,
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
  const days = [
    { ...day({ date: '2026-11-17', accepted: 50, attributed: 0 }), notes: [] },
    { ...day({ date: '2026-11-25', accepted: 10, attributed: 8 }), notes: [] },
  ];
  expect(countedShare(days, now, 'America/New_York')).toEqual({ accepted: 10, attributed: 8, share: 0.8 });
});

test('each gap in plain words, in the order of the funnel', () => {
  expect(explainDay('meta_ads', day({ platformReceived: 88, attributed: 88 }), '2026-11-25')).toEqual([
    'Meta received 12 % fewer than we sent on Nov 14: look for a dedup or pixel problem.',
  ]);
  expect(explainDay('google_ads', day({ attributed: 59 }), '2026-11-25')).toEqual([
    '41 % of Google uploads matched no click or customer: see match quality.',
  ]);
  expect(explainDay('microsoft_ads', day({ date: '2026-11-25', attributed: 0, final: false }), '2026-11-25')).toEqual([
    'Microsoft records offline conversions 2–6 hours after upload: today is not final yet.',
  ]);
  expect(explainDay('google_ads', day({ sent: 90, accepted: 80, attributed: 80 }), '2026-11-25')).toEqual([
    '10 events were not sent (refused before sending, or held for a reconnect): see the delivery log.',
    'Google refused 10 of the events we sent: see the delivery log.',
  ]);
  // Under 5 %: noise, no sentence.
  expect(explainDay('google_ads', day({ attributed: 97 }), '2026-11-25')).toEqual([]);
});

test('the counted share sums the final days of the last week only', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const days = [
    { ...day({ date: '2026-11-10', accepted: 50, attributed: 0 }), notes: [] },
    { ...day({ date: '2026-11-20', accepted: 10, attributed: 8 }), notes: [] },
    { ...day({ date: '2026-11-25', accepted: 10, attributed: 0, final: false }), notes: [] },
  ];
  expect(countedShare(days, now)).toEqual({ accepted: 10, attributed: 8, share: 0.8 });
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
