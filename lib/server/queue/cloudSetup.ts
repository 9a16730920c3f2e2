import { PubSub, type CreateSubscriptionOptions } from '@google-cloud/pubsub';
import { ignoreAlreadyExists, subscriptionDeclarations, TOPICS } from '@/lib/server/queue/pubsub';

/**
 * `npm run cloud:setup`: the topics and subscriptions of lib/server/queue/pubsub.ts in a Google Cloud project,
 * made to match their declarations (subscriptionDeclarations: the same ones ensureTopology creates locally).
 * Idempotent: what exists with the declared settings is left alone, a drifted setting is set back, and a
 * subscription on the wrong topic is reported (Pub/Sub cannot move one; delete it and run again).
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

export interface SetupReport {
  created: string[];
  updated: string[];
  unchanged: string[];
  /** Subscriptions that cannot be made right by an update (on another topic). */
  problems: string[];
}

/** Makes `projectId`'s Pub/Sub match the declarations; `log` hears one line per change. */
export async function setUpPubSub(projectId: string, log: (line: string) => void = () => undefined): Promise<SetupReport> {
  const client = new PubSub({ projectId });
  const report: SetupReport = { created: [], updated: [], unchanged: [], problems: [] };
  try {
    for (const name of Object.values(TOPICS)) {
      const [exists] = await client.topic(name).exists();
      if (exists) {
        report.unchanged.push(`topic ${name}`);
        continue;
      }
      await client.createTopic(name).catch(ignoreAlreadyExists);
      report.created.push(`topic ${name}`);
      log(`created topic ${name}`);
    }
    for (const { topic, name, options } of subscriptionDeclarations((topicName) => client.topic(topicName).name)) {
      const subscription = client.subscription(name);
      const [exists] = await subscription.exists();
      if (!exists) {
        await client.topic(topic).createSubscription(name, options).catch(ignoreAlreadyExists);
        report.created.push(`subscription ${name}`);
        log(`created subscription ${name} on ${topic}`);
        continue;
      }
      const [metadata] = (await subscription.getMetadata()) as unknown as [SubscriptionMetadata];
      const wantedTopic = client.topic(topic).name;
      if (metadata.topic && metadata.topic !== wantedTopic) {
        report.problems.push(`subscription ${name} is on ${metadata.topic}, not ${wantedTopic}: delete it and run again`);
        continue;
      }
      const declared = declaredSettings(options);
      const current = readSettings(metadata, declared);
      const drifted = Object.keys(declared).filter((setting) => declared[setting] !== current[setting]);
      if (drifted.length === 0) {
        report.unchanged.push(`subscription ${name}`);
        continue;
      }
      const changes: CreateSubscriptionOptions = {};
      if (drifted.includes('ackDeadlineSeconds')) changes.ackDeadlineSeconds = options.ackDeadlineSeconds;
      if (drifted.some((setting) => setting.endsWith('Backoff'))) changes.retryPolicy = options.retryPolicy;
      if (drifted.includes('deadLetterTopic') || drifted.includes('maxDeliveryAttempts'))
        changes.deadLetterPolicy = options.deadLetterPolicy;
      if (drifted.includes('messageRetentionDuration')) changes.messageRetentionDuration = options.messageRetentionDuration;
      await subscription.setMetadata(changes);
      report.updated.push(`subscription ${name}`);
      log(`updated subscription ${name}: ${drifted.map((setting) => `${setting} ${current[setting]} → ${declared[setting]}`).join(', ')}`);
    }
  } finally {
    await client.close();
  }
  return report;
}

/** The Cloud Scheduler job that ticks the sync scheduler every minute, as a gcloud command (no client library installed). */
export const schedulerCommand = (projectId: string, location: string) =>
  `gcloud scheduler jobs create pubsub sync-tick --project=${projectId} --location=${location} ` +
  `--schedule='* * * * *' --topic=${TOPICS.syncTicks} --message-body='{}'`;
