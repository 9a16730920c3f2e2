import { assertServerConfiguration, configurationProblems, REQUIRED_IN_PRODUCTION } from '@/lib/server/env';

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
