import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assertServerConfiguration, configurationProblems, REQUIRED_IN_PRODUCTION, SECRET_VARIABLES, VARIABLES } from '@/lib/server/env';

const LOCAL = { FIRESTORE_EMULATOR_HOST: '127.0.0.1:8180', FIREBASE_AUTH_EMULATOR_HOST: '127.0.0.1:9199' };
const PRODUCTION: Record<string, string> = {
  ...Object.fromEntries(REQUIRED_IN_PRODUCTION.map((name) => [name, 'set'])),
  APP_URL: 'https://app.signalbridge.example',
  CREDENTIALS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
};

test('locally the sandbox fills in the platforms: nothing is required', () => {
  expect(configurationProblems(LOCAL)).toEqual([]);
});

test('in production a missing Google client secret is named, not found at the first consent', () => {
  const env = { ...PRODUCTION };
  delete env.GOOGLE_OAUTH_CLIENT_SECRET;
  expect(configurationProblems(env)).toEqual(['GOOGLE_OAUTH_CLIENT_SECRET is not set']);
  expect(() => assertServerConfiguration(env)).toThrow(/GOOGLE_OAUTH_CLIENT_SECRET is not set/);
});

test('a complete production configuration starts', () => {
  expect(configurationProblems(PRODUCTION)).toEqual([]);
});

test('what is set must have its shape, locally too', () => {
  expect(
    configurationProblems({
      ...LOCAL,
      APP_URL: 'localhost:3000',
      CREDENTIALS_ENCRYPTION_KEY: 'short',
      RATE_LIMIT_INVITATIONS_PER_USER_PER_HOUR: '0',
    }),
  ).toEqual([
    'APP_URL must be an http(s) URL',
    'CREDENTIALS_ENCRYPTION_KEY must be 32 bytes, base64-encoded',
    'RATE_LIMIT_INVITATIONS_PER_USER_PER_HOUR must be a positive whole number',
  ]);
});

describe('one declaration of every variable', () => {
  const readRepoFile = (file: string) => readFileSync(path.join(__dirname, '..', '..', file), 'utf8');
  /** The names .env.example documents, set (`NAME=`) or commented out (`# NAME=`). */
  const documented = new Set([...readRepoFile('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!));
  // The local stack's own ports and tools (scripts/, never read by the app or the worker).
  const LOCAL_TOOLING = [
    'PORT',
    'AUTH_EMULATOR_PORT',
    'FIRESTORE_EMULATOR_PORT',
    'EMULATOR_HUB_PORT',
    'EMULATOR_LOGGING_PORT',
    'PUBSUB_EMULATOR_PORT',
    'E2E_PORT',
    'FAKE_CUSTOMERIO_PORT',
    'FAKE_SLACK_PORT',
    'FAKE_STRIPE_PORT',
    'FAKE_PLATFORMS_PORT',
    'FIRESTORE_EMULATOR_JAR',
    'CLOUD_SETUP_API_URL',
    'FAKE_GCP_PORT',
  ];

  test('.env.example documents every declared variable, and nothing else but the local tooling', () => {
    expect(Object.keys(VARIABLES).filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !(name in VARIABLES) && !LOCAL_TOOLING.includes(name))).toEqual([]);
  });

  test('docs/DEPLOY.md names every secret and every required variable', () => {
    const deploy = readRepoFile('docs/DEPLOY.md');
    expect([...SECRET_VARIABLES, ...REQUIRED_IN_PRODUCTION].filter((name) => !deploy.includes(`\`${name}\``))).toEqual([]);
  });

  test("a worker's number with a typo is refused, not a silent default", () => {
    expect(configurationProblems({ ...LOCAL, WORKER_MAX_EVENTS: 'abc', SYNC_CONCURRENCY: '4x' })).toEqual([
      'WORKER_MAX_EVENTS must be a positive whole number',
      'SYNC_CONCURRENCY must be a positive whole number',
    ]);
  });
});
