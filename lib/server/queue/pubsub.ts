import { PubSub, v1, type CreateSubscriptionOptions, type Topic } from '@google-cloud/pubsub';
import { z } from 'zod';
import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import { AD_PLATFORMS } from '@/lib/shared/integrations/platforms';
import { installCostTrace } from '@/lib/server/costTrace';

/**
 * The data plane's queue: Google Cloud Pub/Sub (the emulator locally, when PUBSUB_EMULATOR_HOST is
 * set). Each topic's message has one schema here; publishers and workers both go through it.
 *
 * conversion-events        conversion events (up to 500 a message), from ingest, payments, replays
 *   └ conversion-delivery  the delivery workers' subscription (retry policy, dead-letter topic)
 * conversion-events-dead   what the delivery subscription gave up on after 20 attempts
 *   └ conversion-dead-letters keeps them (a topic without a subscription drops what it gets)
 * sync-ticks               "see what is due" (Cloud Scheduler in production, the dev tick locally)
 *   └ sync-scheduler       claims due connections and publishes their jobs
 * sync-jobs                one account × window of a scheduled or manual run
 *   └ sync-workers
 * sync-backfill-jobs       one account × chunk of a backfill (a separate queue: low priority)
 *   └ sync-backfill-workers
 * sync-jobs-dead           what the job subscriptions gave up on
 *   └ sync-dead-letters
 */

export const TOPICS = {
  conversions: 'conversion-events',
  conversionsDead: 'conversion-events-dead',
  syncTicks: 'sync-ticks',
  syncJobs: 'sync-jobs',
  backfillJobs: 'sync-backfill-jobs',
  syncDead: 'sync-jobs-dead',
} as const;
export const SUBSCRIPTIONS = {
  delivery: 'conversion-delivery',
  deadLetters: 'conversion-dead-letters',
  scheduler: 'sync-scheduler',
  syncWorkers: 'sync-workers',
  backfillWorkers: 'sync-backfill-workers',
  syncDeadLetters: 'sync-dead-letters',
} as const;

let client: PubSub | null = null;

export function pubsub(): PubSub {
  // The bench's cost section counts what is published and pulled (lib/server/costTrace.ts): before the first client.
  if (process.env.COST_TRACE_DIR) installCostTrace(process.env.COST_TRACE_DIR);
  client ??= new PubSub({ projectId: process.env.PUBSUB_PROJECT_ID || process.env.GCLOUD_PROJECT || process.env.FIREBASE_PROJECT_ID });
  return client;
}

/** The low-level subscriber (unary Pull, acknowledge, modifyAckDeadline), on the same host as pubsub(). */
export function subscriberClient(): v1.SubscriberClient {
  const { options } = pubsub();
  return new v1.SubscriberClient({ ...options, port: options.port === undefined ? undefined : Number(options.port) });
}

/** Where a conversion event came from, and — for a replay — the one conversion it is for. */
export const conversionAttributesSchema = z.object({
  org: z.string().min(1),
  /** "app:{id}", "payments:{id}", or a warehouse read's "bigquery:{destination id}" / "mixpanel:{destination id}". */
  source: z.string().regex(/^(app|payments|bigquery|mixpanel):[\w-]+$/),
  /** Set when the event is replayed for one conversion (Retry, held events after Reconnect). */
  conversion: z.string().min(1).optional(),
  /**
   * Set when the events were parked and are published again (Retry, Reconnect): they were counted as received
   * when they first came, so their delivery does not count them again (repos/conversions.ts hourTally).
   */
  replay: z.literal('parked').optional(),
  /** Set when a batch waits for its retry in the queue (router.ts): attempts made, and when it may be sent (ms). */
  attempt: z
    .string()
    .regex(/^\d{1,3}$/)
    .optional(),
  not_before: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional(),
});

export type ConversionAttributes = z.infer<typeof conversionAttributesSchema>;

/** A subscription the app uses: its topic, its name, and its settings (the one declaration, for ensureTopology and cloud:setup). */
export interface SubscriptionDeclaration {
  topic: string;
  name: string;
  options: CreateSubscriptionOptions;
}

/**
 * Every subscription with its settings. `topicPath` names a topic in full (`projects/{p}/topics/{t}`),
 * as a dead-letter policy needs it.
 */
export function subscriptionDeclarations(topicPath: (topic: string) => string): SubscriptionDeclaration[] {
  const retryPolicy = { minimumBackoff: { seconds: 10 }, maximumBackoff: { seconds: 600 } };
  const keep = { messageRetentionDuration: { seconds: 7 * 24 * 3600 } };
  const jobs = (deadLetters: string): CreateSubscriptionOptions => ({
    ackDeadlineSeconds: 20,
    retryPolicy,
    deadLetterPolicy: { deadLetterTopic: topicPath(deadLetters), maxDeliveryAttempts: 20 },
  });
  return [
    { topic: TOPICS.conversionsDead, name: SUBSCRIPTIONS.deadLetters, options: keep },
    { topic: TOPICS.conversions, name: SUBSCRIPTIONS.delivery, options: jobs(TOPICS.conversionsDead) },
    { topic: TOPICS.syncDead, name: SUBSCRIPTIONS.syncDeadLetters, options: keep },
    { topic: TOPICS.syncTicks, name: SUBSCRIPTIONS.scheduler, options: { ackDeadlineSeconds: 30 } },
    { topic: TOPICS.syncJobs, name: SUBSCRIPTIONS.syncWorkers, options: jobs(TOPICS.syncDead) },
    { topic: TOPICS.backfillJobs, name: SUBSCRIPTIONS.backfillWorkers, options: jobs(TOPICS.syncDead) },
  ];
}

let topology: Promise<void> | null = null;

/**
 * Creates the topics and subscriptions when they are missing (the emulator starts empty; production
 * runs `npm run cloud:setup` once, which also corrects settings that drifted). Idempotent and safe from
 * many processes.
 */
export function ensureTopology(): Promise<void> {
  topology ??= (async () => {
    const client = pubsub();
    const ensureTopic = async (name: string) => {
      const [exists] = await client.topic(name).exists();
      if (!exists) await client.createTopic(name).catch(ignoreAlreadyExists);
    };
    await Promise.all(Object.values(TOPICS).map(ensureTopic));
    for (const { topic, name, options } of subscriptionDeclarations((name) => client.topic(name).name)) {
      const [exists] = await client.subscription(name).exists();
      if (!exists) await client.topic(topic).createSubscription(name, options).catch(ignoreAlreadyExists);
    }
  })().catch((error) => {
    topology = null;
    throw error;
  });
  return topology;
}

export function ignoreAlreadyExists(error: { code?: number }) {
  // 6 = ALREADY_EXISTS: another process created it first.
  if (error.code !== 6) throw error;
}

let conversionsTopic: Topic | null = null;

/**
 * Events per message at most: one ingest batch (≤ 500) travels as one message, so a message is not paid
 * for per event by the publisher, Pub/Sub and the worker. Measured end to end, messages of 100 made the
 * pipeline a quarter slower. What a message weighs bounds how many a worker may pull at once
 * (queue/pull.ts): with the default limit, one-event messages come 20 a Pull.
 */
export const EVENTS_PER_MESSAGE = 500;
/** Bytes of one message's events at most (an event is at most a few kB: its fields are capped). */
const MESSAGE_BYTES = 1_000_000;

/**
 * How many events a message holds, from its `events` attribute (set by publishConversions), so a
 * worker can count what it has in hand before parsing; a whole number, 1 for a message published
 * before packing or a count that is none.
 */
export const eventsInMessage = (attributes: Record<string, string>) => Math.max(1, Math.floor(Number(attributes.events)) || 1);

/**
 * The messages that carry these events: JSON arrays of up to EVENTS_PER_MESSAGE events and about
 * MESSAGE_BYTES each (an event larger than that alone travels alone), in order.
 */
export function packEvents(events: ConversionEvent[]): Array<{ data: Buffer; count: number }> {
  const messages: Array<{ data: Buffer; count: number }> = [];
  let texts: string[] = [];
  /** UTF-8 bytes of the message so far: its brackets and commas included. */
  let bytes = 1;
  const close = () => {
    messages.push({ data: Buffer.from(`[${texts.join(',')}]`), count: texts.length });
    texts = [];
    bytes = 1;
  };
  for (const event of events) {
    const text = JSON.stringify(event);
    const size = Buffer.byteLength(text) + 1;
    if (texts.length === EVENTS_PER_MESSAGE || (texts.length > 0 && bytes + size > MESSAGE_BYTES)) close();
    texts.push(text);
    bytes += size;
  }
  if (texts.length > 0) close();
  return messages;
}

/**
 * How the client batches conversion messages into Publish requests: the messages of concurrent requests
 * travel together, and the first waits at most 1 ms for company. Every ingest request awaits its own
 * message's publish, so this wait is on each 202's path: with 32 requests in flight against the emulator,
 * 1 ms published about twice as many single-event messages a second as 5 ms (p50 ~2 ms against ~6-9 ms).
 */
export const CONVERSIONS_BATCHING = { maxMessages: 1000, maxMilliseconds: 1 };

/**
 * Publishes events packed into messages (batched by the client into few requests); resolves once Pub/Sub has
 * them all. A small publish (a website's single event, a form's, a payment's) is gathered with the others of
 * the same attributes published in the same turn of the event loop into one message (see gather).
 */
export async function publishConversions(events: ConversionEvent[], attributes: ConversionAttributes): Promise<void> {
  await ensureTopology();
  conversionsTopic ??= pubsub().topic(TOPICS.conversions, { batching: CONVERSIONS_BATCHING });
  const topic = conversionsTopic;
  const attrs = Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Record<string, string>;
  if (events.length <= GATHERED_AT_MOST) return gather(topic, attrs, events);
  await Promise.all(
    packEvents(events).map(({ data, count }) => topic.publishMessage({ data, attributes: { ...attrs, events: String(count) } })),
  );
}

/** Publishes this small or smaller are gathered with their neighbours; larger ones are messages of their own. */
const GATHERED_AT_MOST = 20;

/** A message being gathered: its events' JSON, their bytes, and the publish its callers wait for. */
interface Gathering {
  texts: string[];
  bytes: number;
  published: Promise<void>;
  send: () => void;
}
const gatherings = new Map<string, Gathering>();

/**
 * Adds small publishes' events to the message gathering for their attributes (one organization's source, or
 * one conversion's replay), sent once the event loop's turn that gathered it is over (setImmediate: the
 * requests parsed in that turn; a lone request waits for nobody), or when full. Single-event requests that
 * arrive together (a flash sale) become fewer messages: Pub/Sub and the worker's Pulls and acks handle one
 * message for several events. Each caller still resolves only once the message
 * holding its events is published (a 202 means "durably queued"), and a failed publish fails them all.
 */
function gather(topic: Topic, attributes: Record<string, string>, events: ConversionEvent[]): Promise<void> {
  const key = JSON.stringify(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b)));
  const texts = events.map((event) => JSON.stringify(event));
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text) + 1, 0);
  let open = gatherings.get(key);
  if (open && (open.texts.length + texts.length > EVENTS_PER_MESSAGE || open.bytes + bytes > MESSAGE_BYTES)) {
    open.send();
    open = undefined;
  }
  if (!open) {
    let settle!: { resolve: () => void; reject: (error: unknown) => void };
    const published = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    const gathering: Gathering = {
      texts: [],
      bytes: 1,
      published,
      send: () => {
        clearImmediate(timer);
        if (gatherings.get(key) === gathering) gatherings.delete(key);
        const data = Buffer.from(`[${gathering.texts.join(',')}]`);
        topic
          .publishMessage({ data, attributes: { ...attributes, events: String(gathering.texts.length) } })
          .then(() => settle.resolve(), settle.reject);
      },
    };
    const timer = setImmediate(gathering.send);
    gatherings.set(key, gathering);
    open = gathering;
  }
  open.texts.push(...texts);
  open.bytes += bytes;
  return open.published;
}

/** An event of a message that does not follow the schema: its id (or a stand-in), its name if any, and why. */
export interface UnreadableEvent {
  id: string;
  name?: string;
  reason: string;
}

/**
 * A received message's events and attributes, or null when its attributes or text do not follow the
 * schema. A message holds a JSON array of events (or, as published before packing, one event); an
 * event that does not follow the schema is left out and described in `unreadable`, so the worker logs it as not sent rather than losing it in silence.
 */
export function parseConversionMessage(
  data: Buffer,
  attributes: Record<string, string>,
): { events: ConversionEvent[]; unreadable: UnreadableEvent[]; attributes: ConversionAttributes } | null {
  const attrs = conversionAttributesSchema.safeParse(attributes);
  if (!attrs.success) return null;
  let items: unknown;
  try {
    items = JSON.parse(data.toString('utf8'));
  } catch {
    return null;
  }
  const list = Array.isArray(items) ? items : [items];
  const events: ConversionEvent[] = [];
  const unreadable: UnreadableEvent[] = [];
  list.forEach((item, index) => {
    const event = conversionEventSchema.safeParse(item);
    if (event.success) return events.push(event.data);
    const raw = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const issue = event.error.issues[0];
    unreadable.push({
      id: typeof raw.id === 'string' && raw.id.length > 0 ? raw.id.slice(0, 100) : `unreadable-${index}`,
      ...(typeof raw.name === 'string' ? { name: raw.name.slice(0, 100) } : {}),
      reason: `Not sent: the event cannot be delivered as queued (${issue?.path.join('.') || 'event'}: ${issue?.message ?? 'invalid'})`,
    });
  });
  return { events, unreadable, attributes: attrs.data };
}

/** A sync job: one account of a connection over a window of days, part of a run. */
export const syncJobSchema = z.object({
  org: z.string().min(1),
  connection: z.string().min(1),
  run: z.string().min(1),
  job: z.string().min(1),
  /**
   * The connection's source platform (it never changes): the worker's per-account lane without reading the
   * connection. Absent from messages published before it was added; the worker reads the connection then.
   */
  platform: z.enum(AD_PLATFORMS).optional(),
});

export type SyncJob = z.infer<typeof syncJobSchema>;

/** Publishes sync jobs to the scheduled queue, or to the low-priority backfill queue. */
export async function publishSyncJobs(jobs: SyncJob[], queue: 'scheduled' | 'backfill'): Promise<void> {
  await ensureTopology();
  const topic = pubsub().topic(queue === 'backfill' ? TOPICS.backfillJobs : TOPICS.syncJobs);
  // Attributes say whose job it is and which queue, so a dead letter is counted and replayed without parsing it.
  await Promise.all(jobs.map((job) => topic.publishMessage({ json: job, attributes: { org: job.org, queue } })));
}

/** Asks the scheduler to look for due connections now. */
export async function publishTick(): Promise<void> {
  await ensureTopology();
  await pubsub()
    .topic(TOPICS.syncTicks)
    .publishMessage({ json: { at: new Date().toISOString() } });
}

export function parseSyncJob(data: Buffer): SyncJob | null {
  try {
    const job = syncJobSchema.safeParse(JSON.parse(data.toString('utf8')));
    return job.success ? job.data : null;
  } catch {
    return null;
  }
}
