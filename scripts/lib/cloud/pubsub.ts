import { PubSub, type CreateSubscriptionOptions } from '@google-cloud/pubsub';
import { ignoreAlreadyExists, subscriptionDeclarations, TOPICS } from '@/lib/server/queue/pubsub';
import type { Change, Part } from '@/scripts/lib/cloud/plan';

/**
 * The topics and subscriptions of lib/server/queue/pubsub.ts in a Google Cloud project, made to match their
 * declarations (subscriptionDeclarations: the same ones ensureTopology creates locally), with
 * @google-cloud/pubsub (PUBSUB_EMULATOR_HOST: that emulator). What exists with the declared settings is left
 * alone, a drifted setting is set back, and a subscription on the wrong topic is a problem (Pub/Sub cannot
 * move one; delete it and run again).
 */

/** A setting as compared: whole seconds for durations, names in full. */
type Comparable = Record<string, string | number | null>;

interface Duration {
  seconds?: number | string | { toString(): string } | null;
}

const seconds = (duration: Duration | null | undefined) => (duration ? Number(String(duration.seconds ?? 0)) : null);

/** The declared settings of a subscription, in the shape they are read back. */
export function declaredSettings(options: CreateSubscriptionOptions): Comparable {
  const settings: Comparable = {};
  if (options.ackDeadlineSeconds !== undefined) settings.ackDeadlineSeconds = options.ackDeadlineSeconds;
  if (options.retryPolicy) {
    settings.minimumBackoff = seconds(options.retryPolicy.minimumBackoff as Duration);
    settings.maximumBackoff = seconds(options.retryPolicy.maximumBackoff as Duration);
  }
  if (options.deadLetterPolicy) {
    settings.deadLetterTopic = options.deadLetterPolicy.deadLetterTopic ?? null;
    settings.maxDeliveryAttempts = options.deadLetterPolicy.maxDeliveryAttempts ?? null;
  }
  if (options.messageRetentionDuration) settings.messageRetentionDuration = seconds(options.messageRetentionDuration as Duration);
  return settings;
}

interface SubscriptionMetadata {
  topic?: string | null;
  ackDeadlineSeconds?: number | null;
  retryPolicy?: { minimumBackoff?: Duration | null; maximumBackoff?: Duration | null } | null;
  deadLetterPolicy?: { deadLetterTopic?: string | null; maxDeliveryAttempts?: number | null } | null;
  messageRetentionDuration?: Duration | null;
}

/** What Pub/Sub holds of the declared settings (only those: the rest keeps Pub/Sub's defaults). */
export function readSettings(metadata: SubscriptionMetadata, declared: Comparable): Comparable {
  const all: Comparable = {
    ackDeadlineSeconds: metadata.ackDeadlineSeconds ?? null,
    minimumBackoff: seconds(metadata.retryPolicy?.minimumBackoff),
    maximumBackoff: seconds(metadata.retryPolicy?.maximumBackoff),
    deadLetterTopic: metadata.deadLetterPolicy?.deadLetterTopic || null,
    maxDeliveryAttempts: metadata.deadLetterPolicy?.maxDeliveryAttempts ?? null,
    messageRetentionDuration: seconds(metadata.messageRetentionDuration),
  };
  return Object.fromEntries(Object.keys(declared).map((name) => [name, all[name] ?? null]));
}

/** The change list of `client`'s project: topics first (a subscription's topic must exist before it). */
export async function planPubSub(client: PubSub): Promise<Change[]> {
  const changes: Change[] = [];
  for (const name of Object.values(TOPICS)) {
    const [exists] = await client.topic(name).exists();
    changes.push(
      exists
        ? { kind: 'unchanged', resource: `topic ${name}` }
        : { kind: 'create', resource: `topic ${name}`, apply: () => client.createTopic(name).catch(ignoreAlreadyExists) },
    );
  }
  for (const { topic, name, options } of subscriptionDeclarations((topicName) => client.topic(topicName).name)) {
    const resource = `subscription ${name}`;
    const subscription = client.subscription(name);
    const [exists] = await subscription.exists();
    if (!exists) {
      changes.push({
        kind: 'create',
        resource,
        detail: `on ${topic}`,
        apply: () => client.topic(topic).createSubscription(name, options).catch(ignoreAlreadyExists),
      });
      continue;
    }
    const [metadata] = (await subscription.getMetadata()) as unknown as [SubscriptionMetadata];
    const wantedTopic = client.topic(topic).name;
    if (metadata.topic && metadata.topic !== wantedTopic) {
      changes.push({ kind: 'problem', resource, detail: `is on ${metadata.topic}, not ${wantedTopic}: delete it and run again` });
      continue;
    }
    const declared = declaredSettings(options);
    const current = readSettings(metadata, declared);
    const drifted = Object.keys(declared).filter((setting) => declared[setting] !== current[setting]);
    if (drifted.length === 0) {
      changes.push({ kind: 'unchanged', resource });
      continue;
    }
    const update: CreateSubscriptionOptions = {};
    if (drifted.includes('ackDeadlineSeconds')) update.ackDeadlineSeconds = options.ackDeadlineSeconds;
    if (drifted.some((setting) => setting.endsWith('Backoff'))) update.retryPolicy = options.retryPolicy;
    if (drifted.includes('deadLetterTopic') || drifted.includes('maxDeliveryAttempts')) update.deadLetterPolicy = options.deadLetterPolicy;
    if (drifted.includes('messageRetentionDuration')) update.messageRetentionDuration = options.messageRetentionDuration;
    changes.push({
      kind: 'update',
      resource,
      detail: drifted.map((setting) => `${setting} ${current[setting]} → ${declared[setting]}`).join(', '),
      apply: () => subscription.setMetadata(update),
    });
  }
  return changes;
}

/** The Pub/Sub part of `npm run cloud:setup`; `close()` when done. */
export function pubSubPart(projectId: string): Part & { close: () => Promise<void> } {
  const client = new PubSub({ projectId });
  const emulator = process.env.PUBSUB_EMULATOR_HOST;
  return {
    title: `Pub/Sub topics and subscriptions${emulator ? ` (emulator ${emulator})` : ''}`,
    plan: () => planPubSub(client),
    close: () => client.close(),
  };
}

export interface SetupReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  /** Subscriptions that cannot be made right by an update (on another topic). */
  problems: string[];
}

/** Makes `projectId`'s Pub/Sub match the declarations; `log` hears one line per change made. */
export async function setUpPubSub(projectId: string, log: (line: string) => void = () => undefined): Promise<SetupReport> {
  const client = new PubSub({ projectId });
  const report: SetupReport = { created: [], updated: [], unchanged: [], problems: [] };
  try {
    for (const change of await planPubSub(client)) {
      await change.apply?.();
      const said = `${change.resource}${change.detail ? `: ${change.detail}` : ''}`;
      if (change.kind === 'create') report.created.push(change.resource);
      if (change.kind === 'update') report.updated.push(change.resource);
      if (change.kind === 'unchanged') report.unchanged.push(change.resource);
      if (change.kind === 'problem') report.problems.push(`${change.resource} ${change.detail}`);
      if (change.kind === 'create') log(`created ${change.resource}${change.detail ? ` ${change.detail}` : ''}`);
      if (change.kind === 'update') log(`updated ${said}`);
    }
  } finally {
    await client.close();
  }
  return report;
}
