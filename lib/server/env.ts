import { z } from 'zod';
import { BIGQUERY_VARIABLES } from '@/lib/server/connectors/bigquery/config';
import { GOOGLE_VARIABLES } from '@/lib/server/connectors/google/config';
import { GOOGLE_ADS_VARIABLES } from '@/lib/server/connectors/google_ads/config';
import { META_ADS_VARIABLES } from '@/lib/server/connectors/meta_ads/config';
import { MICROSOFT_ADS_VARIABLES } from '@/lib/server/connectors/microsoft_ads/config';
import { LINKEDIN_ADS_VARIABLES } from '@/lib/server/connectors/linkedin_ads/config';
import { MIXPANEL_VARIABLES } from '@/lib/server/connectors/mixpanel/config';
import { STRIPE_PAYMENTS_VARIABLES } from '@/lib/server/connectors/stripe/config';
import { TIKTOK_ADS_VARIABLES } from '@/lib/server/connectors/tiktok_ads/config';
import {
  count,
  link,
  requiredSecret,
  requiredText,
  secret,
  text,
  flag,
  hostPort,
  base64Key32,
  url,
  type Variable,
} from '@/lib/server/envVariable';

const serverEnvSchema = z.object({
  FIREBASE_PROJECT_ID: z.string().min(1).default('demo-signalbridge'),
  /** A service account key as JSON; without it, Application Default Credentials are used. */
  FIREBASE_SERVICE_ACCOUNT: z.string().optional(),
  FIREBASE_AUTH_EMULATOR_HOST: z.string().optional(),
  FIRESTORE_EMULATOR_HOST: z.string().optional(),
  /** The bench's count of Firestore writes per document (lib/server/writeTrace.ts): a directory; unset anywhere else. */
  FIRESTORE_WRITE_TRACE_DIR: z.string().optional(),
  /** The bench's count of Firestore reads, writes and Pub/Sub bytes (lib/server/costTrace.ts): a directory; unset anywhere else. */
  COST_TRACE_DIR: z.string().optional(),
});

export type ServerEnv = z.infer<typeof serverEnvSchema>;

let cached: ServerEnv | undefined;

/** Parsed once per process so a misconfiguration fails loudly at the first request. */
export function serverEnv(): ServerEnv {
  if (!cached) {
    const env = serverEnvSchema.parse({
      ...process.env,
      FIREBASE_PROJECT_ID: process.env.FIREBASE_PROJECT_ID || process.env.NEXT_PUBLIC_FIREBASE_PROJECT_ID || undefined,
    });
    const usesEmulators = Boolean(env.FIREBASE_AUTH_EMULATOR_HOST || env.FIRESTORE_EMULATOR_HOST);
    // firebase-admin accepts unsigned tokens while an emulator host is set: only ever for demo- projects.
    if (usesEmulators && !env.FIREBASE_PROJECT_ID.startsWith('demo-')) {
      throw new Error('Emulator hosts are set for a real Firebase project; unset them or use a demo- project id');
    }
    cached = env;
  }
  return cached;
}

/**
 * Every variable the server and the worker read, declared once: its shape when set, whether it is a
 * secret (kept in Secret Manager in production: docs/DEPLOY.md), and whether a deployment cannot run
 * without it. Both processes check it when they start (instrumentation.ts, workers/index.ts) and refuse
 * to run with the full list of what is wrong, so a typo is never a silent default. `.env.example` and
 * docs/DEPLOY.md are checked against it (tests/unit/env.test.ts).
 */
export const VARIABLES = {
  // The browser's (inlined into the pages at build time).
  NEXT_PUBLIC_FIREBASE_API_KEY: text,
  NEXT_PUBLIC_FIREBASE_AUTH_DOMAIN: text,
  NEXT_PUBLIC_FIREBASE_PROJECT_ID: text,
  NEXT_PUBLIC_FIREBASE_APP_ID: text,
  NEXT_PUBLIC_USE_EMULATORS: { format: flag },
  NEXT_PUBLIC_AUTH_EMULATOR_URL: link,
  NEXT_PUBLIC_FIRESTORE_EMULATOR_HOST: { format: hostPort },
  NEXT_PUBLIC_DEMO_ORG_ID: text,
  NEXT_PUBLIC_BILLING_API_URL: link,
  NEXT_PUBLIC_PLATFORM_SANDBOX_URL: link,
  NEXT_PUBLIC_INTERCOM_APP_ID: text,
  // Firebase, Pub/Sub and the app itself.
  FIREBASE_PROJECT_ID: text,
  FIREBASE_SERVICE_ACCOUNT: secret,
  FIREBASE_AUTH_EMULATOR_HOST: { format: hostPort },
  FIRESTORE_EMULATOR_HOST: { format: hostPort },
  PUBSUB_PROJECT_ID: text,
  PUBSUB_EMULATOR_HOST: { format: hostPort },
  APP_URL: { format: url, required: true },
  CREDENTIALS_ENCRYPTION_KEY: { format: base64Key32, secret: true, required: true },
  CREDENTIALS_ENCRYPTION_KEY_PREVIOUS: { format: base64Key32, secret: true },
  TRUSTED_PROXY_HOPS: { format: z.string().regex(/^\d$/, 'must be a whole number from 0 to 9') },
  LOG_LEVEL: {
    format: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { message: 'must be a pino level (info, warn …)' }),
  },
  // Abuse limits.
  RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND: count,
  RATE_LIMIT_SUBMISSIONS_PER_ADDRESS_PER_SECOND: count,
  RATE_LIMIT_TEST_EVENTS_PER_CONVERSION_PER_MINUTE: count,
  RATE_LIMIT_INVITATIONS_PER_USER_PER_HOUR: count,
  RATE_LIMIT_INVITATIONS_PER_ORGANIZATION_PER_DAY: count,
  // Customer.io, alerts, Intercom.
  CUSTOMERIO_APP_API_KEY: secret,
  CUSTOMERIO_API_URL: link,
  CUSTOMERIO_INVITATION_MESSAGE_ID: text,
  CUSTOMERIO_ALERT_MESSAGE_ID: text,
  CUSTOMERIO_ALERT_DIGEST_MESSAGE_ID: text,
  CUSTOMERIO_SITE_ID: text,
  CUSTOMERIO_API_KEY: secret,
  CUSTOMERIO_TRACK_URL: link,
  ALERTS_SLACK_HTTP_ORIGINS: text,
  ALERT_DIGEST_AFTER: count,
  ALERT_DIGEST_WINDOW_MS: count,
  ALERT_DIGEST_DELAY_MS: count,
  ALERT_EVALUATE_MS: count,
  INTERCOM_IDENTITY_SECRET: secret,
  // Stripe.
  STRIPE_SECRET_KEY: requiredSecret,
  STRIPE_WEBHOOK_SECRET: requiredSecret,
  STRIPE_PRICE_STARTER: requiredText,
  STRIPE_PRICE_GROWTH: requiredText,
  STRIPE_PRICE_SCALE: requiredText,
  STRIPE_API_URL: link,
  // The platforms: each connector folder declares its credentials and base URLs (unset = the real services).
  ...GOOGLE_VARIABLES,
  ...GOOGLE_ADS_VARIABLES,
  ...BIGQUERY_VARIABLES,
  ...META_ADS_VARIABLES,
  ...MICROSOFT_ADS_VARIABLES,
  ...LINKEDIN_ADS_VARIABLES,
  ...TIKTOK_ADS_VARIABLES,
  ...MIXPANEL_VARIABLES,
  ...STRIPE_PAYMENTS_VARIABLES,
  // The worker: delivery, polls and syncs.
  WORKER_MAX_EVENTS: count,
  DELIVERY_LINGER_MS: count,
  DELIVERY_RETRY_ATTEMPTS: count,
  DELIVERY_RETRY_BASE_MS: count,
  DELIVERY_LANE_CONCURRENCY: count,
  DELIVERY_COUNTERS_MS: count,
  DELIVERY_CONVERSION_WRITE_MS: count,
  PAYMENTS_POLL_MS: count,
  DEAD_LETTER_POLL_MS: count,
  WAREHOUSE_POLL_MS: count,
  WAREHOUSE_LEASE_MS: count,
  WAREHOUSE_PAGE_ROWS: count,
  RECONCILE_POLL_MS: count,
  SYNC_CONCURRENCY: count,
  SYNC_BACKFILL_CONCURRENCY: count,
  SYNC_BACKFILL_HELD: count,
  SYNC_RUN_WRITE_INTERVAL_MS: count,
  SYNC_JOB_ATTEMPTS: count,
  // 0 (the benches and tests): no tick of its own, as when unset.
  SYNC_TICK_MS: { format: z.string().regex(/^\d+$/, 'must be a whole number (0: no tick of its own)') },
  // Measuring only (npm run bench).
  FIRESTORE_WRITE_TRACE_DIR: text,
  COST_TRACE_DIR: text,
} as const satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;

const NAMES = Object.keys(VARIABLES) as VariableName[];
const declared = (name: VariableName): Variable => VARIABLES[name];

/** Without these a real deployment fails at its first sign-in, payment or consent: refuse to start instead. */
export const REQUIRED_IN_PRODUCTION = NAMES.filter((name) => declared(name).required);

/** The credentials: in Secret Manager in production (`npm run cloud:setup` makes a secret of each). */
export const SECRET_VARIABLES = NAMES.filter((name) => declared(name).secret);

/**
 * What is wrong with the configuration (the server's and the worker's: one deployment, one set of
 * variables), one line per variable, named. Locally (an emulator
 * host is set: `npm run dev`, `npm test`) the sandbox fills in the platforms, so only the shape of
 * what is set is checked; anywhere else every variable a real deployment needs must be there too.
 */
export function configurationProblems(env: Record<string, string | undefined> = process.env): string[] {
  const local = Boolean(env.FIREBASE_AUTH_EMULATOR_HOST || env.FIRESTORE_EMULATOR_HOST);
  const problems: string[] = [];
  if (!local) {
    for (const name of REQUIRED_IN_PRODUCTION) if (!env[name]) problems.push(`${name} is not set`);
    // Plain-http Slack webhooks are for the sandbox's fake receiver only (lib/server/alerts/slack.ts).
    if (env.ALERTS_SLACK_HTTP_ORIGINS) problems.push('ALERTS_SLACK_HTTP_ORIGINS is for the local sandbox only: unset it');
  }
  for (const name of NAMES) {
    const value = env[name];
    if (!value) continue;
    const result = declared(name).format.safeParse(value);
    if (!result.success) problems.push(`${name} ${result.error.issues[0]?.message ?? 'is not valid'}`);
  }
  return problems;
}

/** Refuses to start a misconfigured server or worker, naming every variable at fault (see .env.example). */
export function assertServerConfiguration(env: Record<string, string | undefined> = process.env): void {
  const problems = configurationProblems(env);
  if (problems.length) {
    throw new Error(
      `SignalBridge cannot start: the configuration is incomplete or malformed.\n- ${problems.join('\n- ')}\nSee .env.example.`,
    );
  }
}
