import { REQUIRED_IN_PRODUCTION, SECRET_VARIABLES, type VariableName } from '@/lib/server/env';
import { SUBSCRIPTIONS, TOPICS } from '@/lib/server/queue/pubsub';

/**
 * Who runs what, and what each may touch: the declarations behind the service accounts, the secrets and
 * the IAM grants of `npm run cloud:setup`. Least privilege: a Pub/Sub role is granted on the topic or
 * subscription that needs it, a secret's accessor role on that secret; only what Google offers per project
 * alone (Firestore, Firebase Auth, Pub/Sub metadata) is granted on the project. docs/DEPLOY.md explains each.
 */

export type AccountKey = 'web' | 'worker';

export const SERVICE_ACCOUNTS: Record<AccountKey, { id: string; displayName: string; description: string }> = {
  web: {
    id: 'sb-web',
    displayName: 'SignalBridge web',
    description: 'The Next.js app on Cloud Run: pages, API routes, ingest (npm run cloud:setup)',
  },
  worker: {
    id: 'sb-worker',
    displayName: 'SignalBridge worker',
    description: 'The worker on Cloud Run: delivery, syncs, pollers (npm run cloud:setup)',
  },
};

export const accountEmail = (projectId: string, key: AccountKey) => `${SERVICE_ACCOUNTS[key].id}@${projectId}.iam.gserviceaccount.com`;

/** Which process reads a secret (the worker's from its bundle's imports); one not named here: both. */
const READERS: Partial<Record<VariableName, AccountKey[]>> = {
  STRIPE_SECRET_KEY: ['web'],
  STRIPE_WEBHOOK_SECRET: ['web'],
  CUSTOMERIO_API_KEY: ['web'],
  INTERCOM_IDENTITY_SECRET: ['web'],
};

/**
 * A Secret Manager secret per secret variable of lib/server/env.ts (SECRET_VARIABLES), of the same name, with
 * the accounts that read it. Not FIREBASE_SERVICE_ACCOUNT: on Google Cloud the service account's own
 * credentials are used. The non-secret settings (APP_URL, price ids, OAuth client ids) stay plain variables.
 */
export const SECRETS: Array<{ name: VariableName; readers: AccountKey[]; required: boolean }> = SECRET_VARIABLES.filter(
  (name) => name !== 'FIREBASE_SERVICE_ACCOUNT',
).map((name) => ({
  name,
  readers: READERS[name] ?? ['web', 'worker'],
  required: (REQUIRED_IN_PRODUCTION as readonly string[]).includes(name),
}));

/** Where a role is granted. */
export type GrantTarget =
  { kind: 'project' } | { kind: 'topic'; name: string } | { kind: 'subscription'; name: string } | { kind: 'secret'; name: string };

export interface Grant {
  /** An account of ours, or the Pub/Sub service agent (dead-lettering). */
  member: AccountKey | 'pubsubAgent';
  role: string;
  on: GrantTarget;
  reason: string;
}

const topic = (name: string): GrantTarget => ({ kind: 'topic', name });
const subscription = (name: string): GrantTarget => ({ kind: 'subscription', name });
const project: GrantTarget = { kind: 'project' };

export const GRANTS: Grant[] = [
  { member: 'web', role: 'roles/datastore.user', on: project, reason: 'reads and writes Firestore (no narrower scope exists)' },
  {
    member: 'web',
    role: 'roles/firebaseauth.admin',
    on: project,
    reason: 'creates session cookies and checks revocation (firebaseauth.users.createSession is only in this role)',
  },
  {
    member: 'web',
    role: 'roles/pubsub.viewer',
    on: project,
    reason: 'publishing first checks that the topology exists (ensureTopology: metadata only, no messages)',
  },
  { member: 'web', role: 'roles/pubsub.publisher', on: topic(TOPICS.conversions), reason: 'ingest, payments and Retry publish events' },
  { member: 'web', role: 'roles/pubsub.publisher', on: topic(TOPICS.syncJobs), reason: '"Run now" publishes a run’s jobs' },
  { member: 'web', role: 'roles/pubsub.publisher', on: topic(TOPICS.backfillJobs), reason: 'a backfill publishes its chunks' },
  { member: 'worker', role: 'roles/datastore.user', on: project, reason: 'reads and writes Firestore (no narrower scope exists)' },
  {
    member: 'worker',
    role: 'roles/pubsub.viewer',
    on: project,
    reason: 'at start ensureTopology checks that every topic and subscription exists (metadata only, no messages)',
  },
  { member: 'worker', role: 'roles/pubsub.subscriber', on: subscription(SUBSCRIPTIONS.delivery), reason: 'delivers conversions' },
  { member: 'worker', role: 'roles/pubsub.subscriber', on: subscription(SUBSCRIPTIONS.scheduler), reason: 'hears the scheduler tick' },
  { member: 'worker', role: 'roles/pubsub.subscriber', on: subscription(SUBSCRIPTIONS.syncWorkers), reason: 'runs sync jobs' },
  { member: 'worker', role: 'roles/pubsub.subscriber', on: subscription(SUBSCRIPTIONS.backfillWorkers), reason: 'runs backfill chunks' },
  {
    member: 'worker',
    role: 'roles/pubsub.subscriber',
    on: subscription(SUBSCRIPTIONS.deadLetters),
    reason: 'moves dead conversion events into Firestore',
  },
  {
    member: 'worker',
    role: 'roles/pubsub.subscriber',
    on: subscription(SUBSCRIPTIONS.syncDeadLetters),
    reason: 'moves dead sync jobs into Firestore',
  },
  {
    member: 'worker',
    role: 'roles/pubsub.publisher',
    on: topic(TOPICS.conversions),
    reason: 'payments, warehouse reads and waiting retries publish events',
  },
  { member: 'worker', role: 'roles/pubsub.publisher', on: topic(TOPICS.syncJobs), reason: 'the scheduler publishes due jobs' },
  { member: 'worker', role: 'roles/pubsub.publisher', on: topic(TOPICS.backfillJobs), reason: 'the scheduler publishes backfill chunks' },
  {
    member: 'pubsubAgent',
    role: 'roles/pubsub.publisher',
    on: topic(TOPICS.conversionsDead),
    reason: 'dead-lettering of conversion-delivery',
  },
  { member: 'pubsubAgent', role: 'roles/pubsub.publisher', on: topic(TOPICS.syncDead), reason: 'dead-lettering of the sync subscriptions' },
  ...[SUBSCRIPTIONS.delivery, SUBSCRIPTIONS.syncWorkers, SUBSCRIPTIONS.backfillWorkers].map((name): Grant => ({
    member: 'pubsubAgent',
    role: 'roles/pubsub.subscriber',
    on: subscription(name),
    reason: 'acknowledges what it forwards to the dead-letter topic',
  })),
  ...SECRETS.flatMap(({ name, readers }) =>
    readers.map((reader): Grant => ({
      member: reader,
      role: 'roles/secretmanager.secretAccessor',
      on: { kind: 'secret', name },
      reason: 'reads it at start',
    })),
  ),
];
