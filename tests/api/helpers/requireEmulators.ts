// API tests run against the real emulators, never against a configured real project.
if (!process.env.FIRESTORE_EMULATOR_HOST || !process.env.FIREBASE_AUTH_EMULATOR_HOST) {
  throw new Error('API tests need the emulators: run them with `npm test` or `npm run test:api`.');
}
