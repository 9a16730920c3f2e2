/** @jest-environment node */
import { Timestamp } from 'firebase-admin/firestore';
import { hourDocument, hourTally, MAX_NAMES_PER_RECORD, nameKey, nameOfKey, sumHours } from '@/lib/server/repos/hourTallies';
import type { DocumentSnapshot } from 'firebase-admin/firestore';

// The event names the platform accepted ride in the hour's document: what scopes the platform's own figures
// (pixel stats, Event Match Quality) to one conversion. A name is one key, whatever it holds.

const outcomes = { delivered: 3, rejected: 1, not_sent: 0, failed: 0, held: 0 };

test('names are counted as one key each, dots and all, and read back as they were sent', () => {
  const tally = hourTally(outcomes, undefined, 0, { Purchase: 2, 'Form.Sent': 1 });
  expect(tally).toMatchObject({ delivered: 3, sent: 4, 'names.Purchase': 2, 'names.Form%2ESent': 1 });
  const data = hourDocument('2026-11-14T10', tally, Timestamp.fromMillis(0), 'totals');
  expect(data.names).toEqual({ Purchase: 2, 'Form%2ESent': 1 });
  const sum = sumHours([{ get: () => '2026-11-14T10', data: () => data } as unknown as DocumentSnapshot]).get('2026-11-14T10')!;
  const names = Object.keys(sum)
    .filter((path) => path.startsWith('names.'))
    .map((path) => nameOfKey(path.slice(6)));
  expect(names.sort()).toEqual(['Form.Sent', 'Purchase']);
  expect(nameOfKey(nameKey('a/b %c'))).toBe('a/b %c');
});

test('at most MAX_NAMES_PER_RECORD names per record: an app sending any name cannot grow the document without end', () => {
  const many = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`Event ${index}`, 1]));
  const tally = hourTally(outcomes, undefined, 0, many);
  expect(Object.keys(tally).filter((path) => path.startsWith('names.'))).toHaveLength(MAX_NAMES_PER_RECORD);
});

test('the hour counts the events not sent (refused or unsendable) apart from the failed ones, inside the old total (issue 37 §7)', () => {
  const tally = hourTally({ delivered: 2, rejected: 1, not_sent: 2, failed: 3, held: 1 });
  // `failed` stays the API's not-delivered total; `notSent` is the part that will not go (the rest: failed, kept for Retry).
  expect(tally).toMatchObject({ delivered: 2, failed: 6, notSent: 3 });
});
