import { z } from 'zod';

const serverEnvSchema = z.object({
  FIREBASE_PROJECT_ID: z.string().min(1).default('demo-signalbridge'),
  /** A service account key as JSON; without it, Application Default Credentials are used. */
  FIREBASE_SERVICE_ACCOUNT: z.string().optional(),
  FIREBASE_AUTH_EMULATOR_HOST: z.string().optional(),
  FIRESTORE_EMULATOR_HOST: z.string().optional(),
  /** The bench's count of Firestore writes per document (lib/server/writeTrace.ts): a directory; unset anywhere else. */
  FIRESTORE_WRITE_TRACE_DIR: z.string().optional(),
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

/** Every server variable, checked once when the server starts (instrumentation.ts). */
const url = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });
const positiveInteger = z.string().regex(/^[1-9]\d*$/, 'must be a positive whole number');
const base64Key32 = z.string().refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

/** Without these a real deployment fails at its first sign-in, payment or consent: refuse to start instead. */
export const REQUIRED_IN_PRODUCTION = [
  'APP_URL',
  'CREDENTIALS_ENCRYPTION_KEY',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'STRIPE_PRICE_STARTER',
  'STRIPE_PRICE_GROWTH',
  'STRIPE_PRICE_SCALE',
  'GOOGLE_OAUTH_CLIENT_ID',
  'GOOGLE_OAUTH_CLIENT_SECRET',
  'META_APP_ID',
  'META_APP_SECRET',
  'MICROSOFT_OAUTH_CLIENT_ID',
  'MICROSOFT_OAUTH_CLIENT_SECRET',
  'MICROSOFT_ADS_DEVELOPER_TOKEN',
] as const;

/** Checked for their shape whenever they are set, locally too. */
const FORMATS: Record<string, z.ZodType<string>> = {
  APP_URL: url,
  CREDENTIALS_ENCRYPTION_KEY: base64Key32,
  CUSTOMERIO_API_URL: url,
  CUSTOMERIO_TRACK_URL: url,
  STRIPE_API_URL: url,
  STRIPE_PAYMENTS_API_URL: url,
  GOOGLE_OAUTH_AUTHORIZE_URL: url,
  GOOGLE_OAUTH_TOKEN_URL: url,
  GOOGLE_USERINFO_URL: url,
  GOOGLE_ADS_API_URL: url,
  GOOGLE_DATA_MANAGER_API_URL: url,
  BIGQUERY_API_URL: url,
  META_OAUTH_DIALOG_URL: url,
  META_GRAPH_API_URL: url,
  MICROSOFT_LOGIN_URL: url,
  MICROSOFT_CUSTOMER_MANAGEMENT_URL: url,
  MICROSOFT_CAMPAIGN_MANAGEMENT_URL: url,
  MICROSOFT_ADS_REPORTING_URL: url,
  MIXPANEL_API_URL_US: url,
  MIXPANEL_API_URL_EU: url,
  MIXPANEL_API_URL_IN: url,
  RATE_LIMIT_SUBMISSIONS_PER_KEY_PER_SECOND: positiveInteger,
  RATE_LIMIT_SUBMISSIONS_PER_ADDRESS_PER_SECOND: positiveInteger,
  DELIVERY_LANE_CONCURRENCY: positiveInteger,
  TRUSTED_PROXY_HOPS: z.string().regex(/^\d$/, 'must be a whole number from 0 to 9'),
  DATAMANAGER_REQUESTS_PER_MINUTE: positiveInteger,
  DELIVERY_COUNTERS_MS: positiveInteger,
  DELIVERY_CONVERSION_WRITE_MS: positiveInteger,
  RATE_LIMIT_TEST_EVENTS_PER_CONVERSION_PER_MINUTE: positiveInteger,
  RATE_LIMIT_INVITATIONS_PER_USER_PER_HOUR: positiveInteger,
  RATE_LIMIT_INVITATIONS_PER_ORGANIZATION_PER_DAY: positiveInteger,
};

/**
 * What is wrong with the server's configuration, one line per variable, named. Locally (an emulator
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
  for (const [name, schema] of Object.entries(FORMATS)) {
    const value = env[name];
    if (!value) continue;
    const result = schema.safeParse(value);
    if (!result.success) problems.push(`${name} ${result.error.issues[0]?.message ?? 'is not valid'}`);
  }
  return problems;
}

/** Refuses to start a misconfigured server, naming every variable at fault (see .env.example). */
export function assertServerConfiguration(env: Record<string, string | undefined> = process.env): void {
  const problems = configurationProblems(env);
  if (problems.length) {
    throw new Error(`SignalBridge cannot start: the server configuration is incomplete.\n- ${problems.join('\n- ')}\nSee .env.example.`);
  }
}
