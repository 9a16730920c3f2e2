/** @jest-environment node */
import { messageBytes, patternOf } from '@/lib/server/costTrace';
import { documentSize, indexRulesOf, indexSize, nameSize, type FieldsProto } from '@/lib/server/storageSize';
import { dollars, stageOfDocument } from '@/scripts/lib/costStages';

// The arithmetic behind `npm run bench -- --only cost` (docs/cost.md): what it prints is only as true as these.

const text = (stringValue: string) => ({ stringValue });
const ids = (values: string[]) => ({ arrayValue: { values: values.map(text) } });

test("a document's storage is Firestore's own worked example: users/jeff/tasks/my_task_id takes 147 bytes", () => {
  const fields: FieldsProto = {
    type: text('Personal'),
    done: { booleanValue: false },
    priority: { integerValue: 1 },
    description: text('Learn Cloud Firestore'),
  };
  expect(nameSize('users/jeff/tasks/my_task_id')).toBe(44);
  expect(documentSize('users/jeff/tasks/my_task_id', fields)).toBe(147);
});

test('index entries: an exempted field has none; an array-contains composite has one per distinct value', () => {
  const rules = indexRulesOf({
    indexes: [{ collectionGroup: 'deliveries', fields: [{ fieldPath: 'event_ids', arrayConfig: 'CONTAINS' }, { fieldPath: 'at' }] }],
    fieldOverrides: [
      { collectionGroup: 'payloads', fieldPath: 'rows_json', indexes: [] },
      { collectionGroup: 'deliveries', fieldPath: 'event_ids', indexes: [] },
    ],
  });
  const path = 'organizations/o/conversions/c/deliveries/d';
  expect(indexSize(`${path}/payloads/0`, { rows_json: text('x'.repeat(100_000)) }, rules)).toBe(0);
  const names = nameSize(path) + nameSize('organizations/o/conversions/c');
  const at = { timestampValue: { seconds: 1, nanos: 0 } };
  // The composite alone (event_ids is exempted): one entry per distinct id, each two names + the id + the time + 32.
  const one = names + 3 + 8 + 32;
  const composite = (count: number) => indexSize(path, { event_ids: ids(['a1', 'a2', 'a1'].slice(0, count)), at }, rules);
  expect(composite(3) - composite(1)).toBe(one);
  // Without the exemption each distinct id is also an array-contains entry of its own (the array's whole-value
  // entries are the same size for both).
  const unexempted = indexRulesOf({ indexes: [], fieldOverrides: [] });
  const single =
    indexSize(path, { event_ids: ids(['a1', 'a2']) }, unexempted) - indexSize(path, { event_ids: ids(['a1', 'a1']) }, unexempted);
  expect(single).toBe(names + 'event_ids'.length + 1 + 3 + 32);
});

test('a Pub/Sub message is billed for its data, attributes, timestamp and id; a document path is summed without its ids', () => {
  expect(messageBytes(Buffer.alloc(500), { org: 'o1', events: '500' })).toBe(500 + 3 + 2 + 6 + 3 + 20 + 16);
  expect(patternOf('organizations/o1/conversions/c1/deliveries/d1/payloads/0')).toBe(
    'organizations/*/conversions/*/deliveries/*/payloads/*',
  );
});

test('list prices: 100,000 reads $0.06, writes $0.18, deletes $0.02, a GiB-month $0.18, a TiB through Pub/Sub $40', () => {
  const cost = (values: Partial<Record<number, number>>) => dollars(Array.from({ length: 10 }, (_, index) => values[index] ?? 0));
  expect(cost({ 0: 100_000 }).operations).toBeCloseTo(0.06);
  expect(cost({ 1: 100_000 }).operations).toBeCloseTo(0.18);
  expect(cost({ 2: 50_000, 3: 50_000 }).operations).toBeCloseTo(0.02);
  expect(cost({ 5: 1 }).storage).toBeCloseTo(0.18);
  expect(cost({ 7: 2 ** 19, 9: 2 ** 19 }).pubsub).toBeCloseTo(40);
});

test('stages: payload chunks, the delivery log and counters by path; the conversion read by the counters is theirs', () => {
  const conversion = 'organizations/*/conversions/*';
  expect(stageOfDocument(`${conversion}/deliveries/*/payloads/*`, 'repos/deliveryLog', true)).toBe('payload chunks');
  expect(stageOfDocument(`${conversion}/deliveries/*`, 'repos/deliveryLog', true)).toBe('delivery log');
  expect(stageOfDocument(`${conversion}/hours/*`, 'repos/deliveryCounters', true)).toBe('counters');
  expect(stageOfDocument(conversion, 'repos/deliveryCounters', true)).toBe('counters');
  expect(stageOfDocument(conversion, 'repos/conversions', true)).toBe('delivery');
  expect(stageOfDocument('submission_keys/*', 'repos/apps', false)).toBe('ingest');
  expect(stageOfDocument('conversions (query, none found)', 'repos/reads', true)).toBe('pollers');
});
