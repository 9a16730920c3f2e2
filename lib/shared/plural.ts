/**
 * A count with its noun in the right number: "1 event", "2 events", "1,204 rows". `many` for nouns
 * that do not just take an s ("1 person", "3 people").
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}
