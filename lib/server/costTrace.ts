import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PubSub, v1 } from '@google-cloud/pubsub';
import { DocumentReference, Firestore, Query, Transaction, WriteBatch } from 'firebase-admin/firestore';
import { documentSize, indexRulesOf, indexSize, type FieldsProto, type IndexRules } from '@/lib/server/storageSize';

/**
 * A measuring aid for the bench (`npm run bench -- --only cost`; never on in production): with COST_TRACE_DIR
 * set, what this process asks of Firestore and Pub/Sub, counted the way they bill it, at our own boundary:
 *
 * - Firestore document reads at the wire (every document a get, a query or a transaction's read returned; a
 *   document asked for and missing apart; a query that returned none counts one read, as Firestore bills it; an
 *   aggregation one per 1,000 counted), writes and deletes as committed (a batch, a transaction, a single set:
 *   all commit through WriteBatch), each by document path with every id replaced by an asterisk
 *   (`organizations/{*}/conversions/{*}/deliveries/{*}` without the braces) and by the module that asked (the first `lib/server` frame of
 *   the caller's stack, carried through the read by an AsyncLocalStorage: `repos/deliveryCounters`);
 * - the documents written (each once), and the storage of each (as last written whole, or at least what its first
 *   update or merge gave it) with an estimate of its index entries (lib/server/storageSize.ts);
 * - Pub/Sub publish requests and pull responses, their messages and bytes as Pub/Sub counts a message's volume
 *   (data + attribute keys and values + 20 bytes of timestamp + its message id, taken as 16 bytes) and the
 *   1,000 bytes it bills a request at least.
 *
 * Each process rewrites `<dir>/<pid>.json` with its running totals every half second and at exit; the bench adds
 * up the files of its processes and subtracts what they held before the stretch it measures.
 */

export interface Tally {
  reads: number;
  /** Documents asked for by name and not found (Firestore bills them as reads too). */
  missing: number;
  writes: number;
  deletes: number;
}

export interface Stored {
  /** Documents written (whole or not) and not deleted: a TTL'd one will cost a delete when it expires. */
  docs: number;
  /** What they take: as last written whole, or (updated or merged only) as much as their first such write gave them. */
  bytes: number;
  indexBytes: number;
}

export interface Traffic {
  requests: number;
  /** Pulls that brought nothing (the long-poll ran out): no data delivered. */
  empty: number;
  messages: number;
  bytes: number;
  /** Bytes as billed: each request that carried messages at least 1,000. */
  billable: number;
}

export interface CostTotals {
  /** `{path pattern}\t{caller}` → counts. */
  firestore: Record<string, Tally>;
  /** Path pattern → what the documents written whole take. */
  stored: Record<string, Stored>;
  /** Topic → publish requests. */
  publish: Record<string, Traffic>;
  /** Subscription → pull responses. */
  pull: Record<string, Traffic>;
}

/** A document path with each document id replaced by an asterisk: what the bench sums by. */
export function patternOf(docPath: string): string {
  return docPath
    .split('/')
    .map((segment, index) => (index % 2 === 1 ? '*' : segment))
    .join('/');
}

const relative = (name: string) => name.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\/?/, '');

/** The module that asked: the first frame of ours that is not this tracing. */
function callerOf(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n').slice(1)) {
    const match = /(lib\/server|scripts|tests|workers)\/([\w/.[\]-]+?)\.tsx?/.exec(line);
    if (!match || /^(costTrace|storageSize|writeTrace|firebaseAdmin)$/.test(match[2]!)) continue;
    return match[1] === 'lib/server' ? match[2]! : `${match[1]}/${match[2]}`;
  }
  return 'other';
}

const callers = new AsyncLocalStorage<string>();

const emptyTotals = (): CostTotals => ({ firestore: {}, stored: {}, publish: {}, pull: {} });
const totals = emptyTotals();
/** Per document written whole: its pattern and what it takes (the last write's size). */
const documents = new Map<string, { pattern: string; bytes: number; indexBytes: number }>();
let changed = false;

function tally(pattern: string, caller: string, field: keyof Tally, count = 1) {
  const key = `${pattern}\t${caller}`;
  const entry = (totals.firestore[key] ??= { reads: 0, missing: 0, writes: 0, deletes: 0 });
  entry[field] += count;
  changed = true;
}

function traffic(into: Record<string, Traffic>, name: string, sizes: number[], empty = false) {
  const entry = (into[name] ??= { requests: 0, empty: 0, messages: 0, bytes: 0, billable: 0 });
  const bytes = sizes.reduce((sum, size) => sum + size, 0);
  entry.requests += 1;
  entry.empty += empty ? 1 : 0;
  entry.messages += sizes.length;
  entry.bytes += bytes;
  entry.billable += sizes.length ? Math.max(1000, bytes) : 0;
  changed = true;
}

/** A message's volume as Pub/Sub bills it: data, attribute keys and values, 20 bytes of timestamp, a 16-byte message id. */
export function messageBytes(data: Uint8Array | string | null | undefined, attributes: Record<string, string> | null | undefined): number {
  const dataBytes = data == null ? 0 : typeof data === 'string' ? Buffer.byteLength(data, 'base64') : data.length;
  const attributeBytes = Object.entries(attributes ?? {}).reduce(
    (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value),
    0,
  );
  return dataBytes + attributeBytes + 20 + 16;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Runs a method of the client with its caller remembered for the reads and commits it leads to. */
function remembered(proto: object, name: string) {
  const target = proto as Record<string, Method>;
  const original = target[name]!;
  target[name] = function (this: unknown, ...args: unknown[]) {
    return callers.run(callerOf(), () => original.apply(this, args));
  };
}

interface ReadRequest {
  parent?: string;
  structuredQuery?: { from?: Array<{ collectionId?: string }> };
  structuredAggregationQuery?: { structuredQuery?: { from?: Array<{ collectionId?: string }> } };
}

/** The collection a query reads: `{parent}/{collection}` as a pattern. */
function queriedPattern(request: ReadRequest): string {
  const from = request.structuredQuery?.from?.[0] ?? request.structuredAggregationQuery?.structuredQuery?.from?.[0];
  const parent = relative(request.parent ?? '');
  return `${parent ? `${patternOf(parent)}/` : ''}${from?.collectionId ?? '?'}`;
}

/** Counts the documents a read stream hands over, as each is emitted. */
function countReads(stream: NodeJS.EventEmitter, method: string, request: ReadRequest, caller: string) {
  let found = 0;
  const emit = stream.emit;
  stream.emit = function (this: NodeJS.EventEmitter, event: string | symbol, ...args: unknown[]) {
    if (event === 'data') {
      const response = args[0] as {
        found?: { name?: string };
        missing?: string;
        document?: { name?: string };
        result?: { aggregateFields?: Record<string, { integerValue?: string | number }> };
      };
      if (response.found?.name) tally(patternOf(relative(response.found.name)), caller, 'reads');
      if (response.missing) tally(patternOf(relative(response.missing)), caller, 'missing');
      if (response.document?.name) {
        found += 1;
        tally(patternOf(relative(response.document.name)), caller, 'reads');
      }
      if (method === 'runAggregationQuery' && response.result) {
        const counted = Math.max(
          0,
          ...Object.values(response.result.aggregateFields ?? {}).map((field) => Number(field.integerValue ?? 0)),
        );
        tally(`${queriedPattern(request)} (aggregation)`, caller, 'reads', Math.max(1, Math.ceil(counted / 1000)));
      }
    }
    // A query that returned nothing is billed one read.
    if (event === 'end' && method === 'runQuery' && found === 0) tally(`${queriedPattern(request)} (query, none found)`, caller, 'reads');
    return emit.call(this, event, ...args);
  } as typeof stream.emit;
}

let rules: IndexRules | null = null;
function indexRules(): IndexRules {
  if (!rules) {
    const file = path.join(process.cwd(), 'firestore.indexes.json');
    rules = indexRulesOf(existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
  }
  return rules;
}

function installFirestore() {
  for (const [proto, names] of [
    [Firestore.prototype, ['getAll', 'runTransaction']],
    [DocumentReference.prototype, ['get', 'set', 'update', 'create', 'delete']],
    [Query.prototype, ['get', 'stream']],
    [Transaction.prototype, ['get', 'getAll']],
    [WriteBatch.prototype, ['commit']],
  ] as const)
    for (const name of names) remembered(proto, name);
  // AggregateQuery is not exported: its get is taken from the first one made (count() makes one through aggregate()).
  const query = Query.prototype as unknown as { aggregate: Method };
  const aggregate = query.aggregate;
  let aggregates = false;
  query.aggregate = function (this: unknown, ...args: unknown[]) {
    const made = aggregate.apply(this, args) as object;
    if (!aggregates) {
      aggregates = true;
      remembered(Object.getPrototypeOf(made), 'get');
    }
    return made;
  };

  const client = Firestore.prototype as unknown as {
    requestStream: (method: string, bidirectional: boolean, request: ReadRequest, tag: string) => Promise<NodeJS.EventEmitter>;
  };
  const requestStream = client.requestStream;
  client.requestStream = async function (method, bidirectional, request, tag) {
    const caller = callers.getStore() ?? 'other';
    const stream = await requestStream.call(this, method, bidirectional, request, tag);
    if (method === 'batchGetDocuments' || method === 'runQuery' || method === 'runAggregationQuery')
      countReads(stream, method, request, caller);
    return stream;
  };

  const batch = WriteBatch.prototype as unknown as {
    _commit: (this: { _ops: Array<{ docPath: string; op: () => unknown }> }, ...args: unknown[]) => Promise<unknown>;
  };
  const commit = batch._commit;
  batch._commit = async function (...args) {
    const caller = callers.getStore() ?? 'other';
    const writes = this._ops.map(({ docPath, op }) => ({
      docPath,
      write: op() as { delete?: string; update?: { fields?: FieldsProto }; updateMask?: unknown },
    }));
    const result = await commit.apply(this, args);
    for (const { docPath, write } of writes) {
      const pattern = patternOf(docPath);
      tally(pattern, caller, write.delete ? 'deletes' : 'writes');
      if (write.delete) documents.delete(docPath);
      else if (write.update && !write.updateMask) {
        const fields = write.update.fields ?? {};
        documents.set(docPath, { pattern, bytes: documentSize(docPath, fields), indexBytes: indexSize(docPath, fields, indexRules()) });
      } else if (!documents.has(docPath)) {
        // Updated or merged, first seen here: sized by what this write gives it (at least that much is stored).
        const fields = write.update?.fields ?? {};
        documents.set(docPath, { pattern, bytes: documentSize(docPath, fields), indexBytes: indexSize(docPath, fields, indexRules()) });
      }
    }
    return result;
  };
}

function installPubSub() {
  const client = PubSub.prototype as unknown as {
    request: (
      this: unknown,
      config: { method: string; reqOpts: { topic?: string; messages?: Array<{ data?: Uint8Array; attributes?: Record<string, string> }> } },
      callback: (error: unknown, ...rest: unknown[]) => void,
    ) => void;
  };
  const request = client.request;
  client.request = function (config, callback) {
    if (config.method !== 'publish') return request.call(this, config, callback);
    const topic = String(config.reqOpts.topic).split('/').at(-1)!;
    const sizes = (config.reqOpts.messages ?? []).map((message) => messageBytes(message.data, message.attributes));
    return request.call(this, config, (error, ...rest) => {
      if (!error) traffic(totals.publish, topic, sizes);
      callback(error, ...rest);
    });
  };
  const subscriber = v1.SubscriberClient.prototype as unknown as { pull: (this: unknown, ...args: unknown[]) => unknown };
  const pull = subscriber.pull;
  subscriber.pull = function (...args) {
    const result = pull.apply(this, args);
    const subscription = String((args[0] as { subscription?: string }).subscription)
      .split('/')
      .at(-1)!;
    if (result instanceof Promise) {
      void result.then(
        ([response]: Array<{ receivedMessages?: Array<{ message?: { data?: Uint8Array; attributes?: Record<string, string> } }> }>) => {
          const sizes = (response?.receivedMessages ?? []).map(({ message }) => messageBytes(message?.data, message?.attributes));
          traffic(totals.pull, subscription, sizes, sizes.length === 0);
        },
        () => undefined,
      );
    }
    return result;
  };
}

let installed = false;

export function installCostTrace(dir: string): void {
  if (installed) return;
  installed = true;
  installFirestore();
  installPubSub();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.json`);
  const flush = () => {
    if (!changed) return;
    changed = false;
    const stored: Record<string, Stored> = {};
    for (const { pattern, bytes, indexBytes } of documents.values()) {
      const entry = (stored[pattern] ??= { docs: 0, bytes: 0, indexBytes: 0 });
      entry.docs += 1;
      entry.bytes += bytes;
      entry.indexBytes += indexBytes;
    }
    writeFileSync(`${file}.tmp`, JSON.stringify({ ...totals, stored }));
    renameSync(`${file}.tmp`, file);
  };
  setInterval(flush, 500).unref();
  process.once('exit', flush);
}

/** The totals of the traced processes whose files are in `dir`, added up. */
export function readCostTotals(dir: string, files: string[]): CostTotals {
  const sum = emptyTotals();
  const add = <T extends object>(into: Record<string, T>, from: Record<string, T>) => {
    for (const [key, value] of Object.entries(from)) {
      const entry = (into[key] ??= Object.fromEntries(Object.keys(value).map((field) => [field, 0])) as T);
      for (const [field, count] of Object.entries(value)) (entry as Record<string, number>)[field]! += count as number;
    }
  };
  for (const name of files) {
    const file = path.join(dir, name);
    if (!existsSync(file)) continue;
    const one = JSON.parse(readFileSync(file, 'utf8')) as CostTotals;
    add(sum.firestore, one.firestore);
    add(sum.stored, one.stored);
    add(sum.publish, one.publish);
    add(sum.pull, one.pull);
  }
  return sum;
}
