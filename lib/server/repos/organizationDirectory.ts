import { FieldPath, FieldValue, type DocumentReference, type DocumentSnapshot } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';

/**
 * Every organization by name, for the super admin's list: the keys (name_lower, id) in shards of at most
 * SHARD_MAX, each holding the keys from its own `from` up to its `to`, the next shard's `from` (the first
 * shard starts below every key, the last has no `to`). A page of the list reads two shards by id, the one
 * holding its first key and the next, however many organizations there are: a query of `organizations` by
 * name would be, in the emulator, a scan of the whole collection. Where each shard starts is kept in
 * memory (`boundaries`); a split since shows as shards read that no longer join up, and the starts are
 * read again.
 *
 * A shard's keys are a map, organization id → name_lower, so entering a key is one field written blind:
 * organizations created at once never wait for each other. The organization stays the truth: a key whose
 * organization has another name_lower by now (a rename half done) is skipped by the reader
 * (readAllOrganizationsPage), and names, logos and connection counts are read from the organization.
 */
export interface DirectoryKey {
  /** The organization's `name_lower`. */
  name: string;
  id: string;
}

/** Split above this many keys: a page of 50 then rarely needs more than the two shards read at once. */
export const SHARD_MAX = 400;
const FIRST_SHARD = 'first';
const BOTTOM: DirectoryKey = { name: '', id: '' };

const directory = () => adminDb().collection('organizationDirectory');
const entry = (id: string) => new FieldPath('entries', id);

/** Firestore orders strings by code point; JavaScript's < by UTF-16 unit, which puts emoji below U+E000–U+FFFF. */
const unit = (code: number) => (code >= 0xd800 && code <= 0xdfff ? code + 0x2000 : code >= 0xe000 ? code - 0x800 : code);

export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const difference = unit(a.charCodeAt(i)) - unit(b.charCodeAt(i));
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/** By name, then by id among equal names: the order of the list and of its cursors. */
export const compareKeys = (a: DirectoryKey, b: DirectoryKey) => compareText(a.name, b.name) || compareText(a.id, b.id);

const byFrom = (direction: 'asc' | 'desc') => directory().orderBy('from_name', direction).orderBy('from_id', direction);
/** The shard whose range holds `key`: the last one starting at or below it. */
const holding = (key: DirectoryKey) => byFrom('desc').startAt(key.name, key.id).limit(1);

const fromOf = (shard: DocumentSnapshot): DirectoryKey => ({ name: shard.get('from_name'), id: shard.get('from_id') });
const toOf = (shard: DocumentSnapshot): DirectoryKey | null =>
  typeof shard.get('to_name') === 'string' ? { name: shard.get('to_name'), id: shard.get('to_id') } : null;
const keysOf = (shard: DocumentSnapshot | undefined): DirectoryKey[] =>
  Object.entries((shard?.get('entries') ?? {}) as Record<string, string>).map(([id, name]) => ({ name, id }));
const shardData = (from: DirectoryKey, to: DirectoryKey | null, keys: DirectoryKey[]) => ({
  from_name: from.name,
  from_id: from.id,
  to_name: to?.name ?? null,
  to_id: to?.id ?? null,
  entries: Object.fromEntries(keys.map(({ name, id }) => [id, name])),
});
const sameKey = (a: DirectoryKey | null, b: DirectoryKey | null) => (a && b ? compareKeys(a, b) === 0 : a === b);

export interface DirectoryRead {
  /** Where to start: `after` a key (a cursor), or `from` it on (a search's prefix, with the empty id). */
  start: { after: DirectoryKey } | { from: DirectoryKey };
  /** Stop before the first name at or above this (a search's end). */
  below?: string;
  count: number;
}

interface Boundary {
  id: string;
  from: DirectoryKey;
}

/** Where each shard starts, in order, as last read (null: not yet read in this process). */
let boundaries: Boundary[] | null = null;

async function readBoundaries(): Promise<Boundary[]> {
  const shards = await byFrom('asc').select('from_name', 'from_id').get();
  boundaries = shards.docs.map((shard) => ({ id: shard.id, from: fromOf(shard) }));
  return boundaries;
}

/** Up to `count` keys in order from `start`, from the shards read by id; null when they do not join up as `known` says. */
async function readShards(known: Boundary[], { start, below, count }: DirectoryRead): Promise<DirectoryKey[] | null> {
  const at = 'after' in start ? start.after : start.from;
  const inclusive = 'from' in start;
  const found = new Map<string, DirectoryKey>();
  let index = known.findLastIndex((boundary) => compareKeys(boundary.from, at) <= 0);
  if (index < 0) return null;
  while (index < known.length && found.size < count) {
    const wanted = known.slice(index, index + 2);
    const shards = await adminDb().getAll(...wanted.map(({ id }) => directory().doc(id)));
    for (const [i, shard] of shards.entries()) {
      const next = known[index + i + 1]?.from ?? null;
      if (!shard.exists || !sameKey(fromOf(shard), wanted[i]!.from) || !sameKey(toOf(shard), next)) return null;
      for (const key of keysOf(shard)) {
        const order = compareKeys(key, at);
        if ((order > 0 || (order === 0 && inclusive)) && (below === undefined || compareText(key.name, below) < 0)) found.set(key.id, key);
      }
    }
    index += wanted.length;
    // Past the search's end, every later shard holds greater keys only.
    if (below !== undefined && index < known.length && compareText(known[index]!.from.name, below) >= 0) break;
  }
  return [...found.values()].sort(compareKeys).slice(0, count);
}

/** Up to `count` keys in order from `start`: usually one read of two shards. */
export async function readDirectory(read: DirectoryRead): Promise<DirectoryKey[]> {
  // An empty directory in memory may have had its first key since: it is read again.
  let known = boundaries?.length ? boundaries : await readBoundaries();
  for (let attempt = 0; attempt < 3; attempt++) {
    if (known.length === 0) return [];
    const keys = await readShards(known, read);
    if (keys) return keys;
    known = await readBoundaries();
  }
  throw new Error('The organization directory kept splitting under a read');
}

/**
 * Splits a shard grown past SHARD_MAX: its upper half moves to a new shard starting at the half's first
 * key. A transaction, so that two writers who both saw it grow split it once. A key at or above the shard's `to`
 * (its writer looked the shard up just before an earlier split, and is moving it to its place) is left out.
 */
async function split(ref: DocumentReference): Promise<void> {
  await adminDb().runTransaction(async (tx) => {
    const shard = await tx.get(ref);
    const [from, to] = [fromOf(shard), toOf(shard)];
    const keys = keysOf(shard)
      .filter((key) => !to || compareKeys(key, to) < 0)
      .sort(compareKeys);
    if (keys.length <= SHARD_MAX) return;
    const half = Math.ceil(keys.length / 2);
    const upper = keys.slice(half);
    tx.set(ref, shardData(from, upper[0]!, keys.slice(0, half)));
    tx.set(directory().doc(), shardData(upper[0]!, to, upper));
  });
}

/** Splits running in this process, by shard: the writers who saw a shard grow at once share one split. */
const splitting = new Map<string, Promise<void>>();

/**
 * A split that another process's split holds off (ABORTED) is left to the next key entered in that shard:
 * until then the shard is only larger than it should be.
 */
function splitOnce(ref: DocumentReference): Promise<void> {
  const running =
    splitting.get(ref.path) ??
    split(ref)
      .catch((error: { code?: number }) => {
        if (error.code !== 10) throw error;
      })
      .finally(() => splitting.delete(ref.path));
  splitting.set(ref.path, running);
  return running;
}

/**
 * Enters an organization's key: written blind into the shard holding it, then looked up again, since a
 * split between the look-up and the write can leave it in the shard below its range; then it is written
 * where it belongs and taken out of where it was.
 */
export async function addToDirectory(key: DirectoryKey): Promise<void> {
  const writtenTo: DocumentReference[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const shard = (await holding(key).get()).docs[0];
    if (shard?.get(entry(key.id)) === key.name) {
      const strays = writtenTo.filter((ref) => !ref.isEqual(shard.ref));
      await Promise.all(strays.map((ref) => ref.update(entry(key.id), FieldValue.delete())));
      return;
    }
    if (!shard) {
      // The first key of all: creating the first shard is a merge, so two first keys at once both land.
      const first = directory().doc(FIRST_SHARD);
      await first.set({ from_name: BOTTOM.name, from_id: BOTTOM.id, entries: { [key.id]: key.name } }, { merge: true });
      writtenTo.push(first);
      continue;
    }
    await shard.ref.update(entry(key.id), key.name);
    writtenTo.push(shard.ref);
    if (keysOf(shard).length >= SHARD_MAX) await splitOnce(shard.ref);
  }
  throw new Error(`The organization directory kept moving under ${key.id}`);
}

/** Takes an organization's old key out after a rename. Its reader skips a key left behind, so one try is enough. */
export async function removeFromDirectory(key: DirectoryKey): Promise<void> {
  const shard = (await holding(key).get()).docs[0];
  if (shard?.get(entry(key.id)) === key.name) await shard.ref.update(entry(key.id), FieldValue.delete());
}

/**
 * Writes the directory afresh from the organizations collection, shards half full (those without a
 * `name_lower` were never listed, and are not now): for organizations written before the directory
 * existed (`npm run organization-directory`), and for seeding many at once. Run it while no organization
 * is being created or renamed.
 */
export async function rebuildDirectory(): Promise<number> {
  const keys: DirectoryKey[] = [];
  const organizations = adminDb().collection('organizations').orderBy(FieldPath.documentId()).select('name_lower').limit(1000);
  for (let page = await organizations.get(); ; page = await organizations.startAfter(page.docs.at(-1)!).get()) {
    for (const doc of page.docs) {
      const name = doc.get('name_lower');
      if (typeof name === 'string') keys.push({ name, id: doc.id });
    }
    if (page.size < 1000) break;
  }
  keys.sort(compareKeys);
  const old = await directory().select().get();
  const writer = adminDb().bulkWriter();
  for (const doc of old.docs) if (doc.id !== FIRST_SHARD) void writer.delete(doc.ref);
  const size = SHARD_MAX / 2;
  for (let i = 0; i === 0 || i < keys.length; i += size) {
    const ref = i === 0 ? directory().doc(FIRST_SHARD) : directory().doc();
    void writer.set(ref, shardData(i === 0 ? BOTTOM : keys[i]!, keys[i + size] ?? null, keys.slice(i, i + size)));
  }
  await writer.close();
  return keys.length;
}
