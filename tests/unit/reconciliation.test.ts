import { countedShare, explainDay, isFinal, metaActionType, windowDays, type ReconcileDay } from '@/lib/shared/conversions/reconciliation';
import { droppedAt } from '@/sandbox/reporting';

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
