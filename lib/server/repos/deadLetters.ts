import { AggregateField, FieldPath, Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';

/**
 * Dead letters: messages a subscription gave up on (20 attempts), as the dead-letter reader stored them
 * (`dead_letters/{queue}-{message id}`). One document per message, written once (a message the reader
 * receives twice overwrites its own copy), so counting is an aggregation and no document is hot.
 */

export type DeadLetterQueue = 'conversions' | 'sync';

export interface DeadLetter {
  queue: DeadLetterQueue;
  messageId: string;
  /** The organization the message names (its `org` attribute or a sync job's `org`), or null. */
  org: string | null;
  /** The topic it was first published to, where a replay publishes it again. */
  topic: string;
  data: Buffer;
  attributes: Record<string, string>;
  /** Conversion events it holds (a sync job: 1). */
  events: number;
}

export interface DeadLetterCounts {
  /** Messages set aside. */
  messages: number;
  /** Conversion events in them (a sync job counts one). */
  events: number;
}

export type DeadLetterSummary = Record<DeadLetterQueue, DeadLetterCounts>;

const COLLECTION = 'dead_letters';
const collection = () => adminDb().collection(COLLECTION);
export const deadLetterDocId = (queue: DeadLetterQueue, messageId: string) => `${queue}-${messageId}`;

/** Stores copies of dead letters (idempotent by message id); resolves once every one is written. */
export async function saveDeadLetters(letters: DeadLetter[]): Promise<void> {
  const db = adminDb();
  // One write each: a message may weigh up to 1 MB, and a batch is capped at 10 MB.
  await Promise.all(
    letters.map((letter) =>
      db.collection(COLLECTION).doc(deadLetterDocId(letter.queue, letter.messageId)).set({
        queue: letter.queue,
        message_id: letter.messageId,
        org: letter.org,
        topic: letter.topic,
        data: letter.data,
        attributes: letter.attributes,
        events: letter.events,
        received_at: Timestamp.now(),
      }),
    ),
  );
}

/**
 * How many dead letters the super admins' views count or read at most per query: an aggregation costs a
 * read per 1,000 index entries and a page a read per document, so a flood must not make every view dear.
 */
export const DEAD_LETTER_COUNT_CAP = 10_000;

/**
 * Messages and events set aside per queue, for one organization or (no orgId) all of them; with `upTo`,
 * counted over at most that many messages per queue (a count equal to it means at least that many).
 */
export async function countDeadLetters(orgId?: string, upTo?: number): Promise<DeadLetterSummary> {
  const count = async (queue: DeadLetterQueue): Promise<DeadLetterCounts> => {
    let query = collection().where('queue', '==', queue);
    if (orgId !== undefined) query = query.where('org', '==', orgId);
    if (upTo !== undefined) query = query.limit(upTo);
    const snapshot = await query.aggregate({ messages: AggregateField.count(), events: AggregateField.sum('events') }).get();
    const { messages, events } = snapshot.data();
    return { messages, events: Number(events ?? 0) };
  };
  const [conversions, sync] = await Promise.all([count('conversions'), count('sync')]);
  return { conversions, sync };
}

/**
 * Messages set aside per organization (null: not attributable), all queues together, over at most `upTo`
 * documents in id order (`complete: false` when more wait). For super admins.
 */
export async function deadLettersByOrganization(upTo = DEAD_LETTER_COUNT_CAP): Promise<{
  byOrganization: Array<{ org: string | null; messages: number; events: number }>;
  complete: boolean;
}> {
  const totals = new Map<string | null, { messages: number; events: number }>();
  const answer = (complete: boolean) => ({
    byOrganization: [...totals].map(([org, total]) => ({ org, ...total })).sort((a, b) => b.messages - a.messages),
    complete,
  });
  let cursor: string | undefined;
  for (let read = 0; read < upTo;) {
    const wanted = Math.min(1000, upTo - read);
    // Reads the small fields only (not the messages' data).
    let query = collection().orderBy(FieldPath.documentId()).select('org', 'events').limit(wanted);
    if (cursor) query = query.startAfter(cursor);
    const page = await query.get();
    read += page.size;
    for (const doc of page.docs) {
      const org = (doc.get('org') as string | null) ?? null;
      const total = totals.get(org) ?? { messages: 0, events: 0 };
      total.messages += 1;
      total.events += Number(doc.get('events') ?? 1);
      totals.set(org, total);
    }
    if (page.size < wanted) return answer(true);
    cursor = page.docs[page.size - 1]!.id;
  }
  // Stopped at the cap: whether any letter lies beyond it.
  let beyond = collection().orderBy(FieldPath.documentId()).select().limit(1);
  if (cursor) beyond = beyond.startAfter(cursor);
  return answer((await beyond.get()).empty);
}

/**
 * Stored dead letters, a page in document order (for one organization and queue when given; equality
 * filters and document order need no composite index), after `after` (a document id) when given.
 */
export async function listDeadLetters(filter: {
  orgId?: string;
  queue?: DeadLetterQueue;
  limit?: number;
  after?: string;
}): Promise<Array<DeadLetter & { id: string }>> {
  let query = collection().orderBy(FieldPath.documentId());
  if (filter.orgId !== undefined) query = query.where('org', '==', filter.orgId);
  if (filter.queue !== undefined) query = query.where('queue', '==', filter.queue);
  if (filter.after) query = query.startAfter(filter.after);
  const snapshot = await query.limit(filter.limit ?? 100).get();
  return snapshot.docs.map((doc) => ({
    id: doc.id,
    queue: doc.get('queue') as DeadLetterQueue,
    messageId: doc.get('message_id') as string,
    org: (doc.get('org') as string | null) ?? null,
    topic: doc.get('topic') as string,
    data: Buffer.from(doc.get('data') as Uint8Array),
    attributes: (doc.get('attributes') ?? {}) as Record<string, string>,
    events: Number(doc.get('events') ?? 1),
  }));
}

/** Removes stored copies once replayed. */
export async function deleteDeadLetters(letters: Array<Pick<DeadLetter, 'queue' | 'messageId'>>): Promise<void> {
  const db = adminDb();
  for (let start = 0; start < letters.length; start += 500) {
    const batch = db.batch();
    for (const letter of letters.slice(start, start + 500)) batch.delete(collection().doc(deadLetterDocId(letter.queue, letter.messageId)));
    await batch.commit();
  }
}
