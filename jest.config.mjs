import nextJest from 'next/jest.js';

const createJestConfig = nextJest({ dir: './' });

const moduleNameMapper = { '^@/(.*)$': '<rootDir>/$1' };

const unit = createJestConfig({
  displayName: 'unit',
  testEnvironment: 'jsdom',
  testMatch: ['<rootDir>/tests/unit/**/*.test.ts?(x)'],
  setupFilesAfterEnv: ['<rootDir>/tests/unit/setup.ts'],
  moduleNameMapper,
});

// Handlers against the real emulators; `npm test` (or `npm run test:api`) starts and stops them.
const api = createJestConfig({
  displayName: 'api',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/tests/api/**/*.test.ts'],
  setupFiles: ['<rootDir>/tests/api/helpers/requireEmulators.ts', '<rootDir>/tests/api/helpers/teenyRequest.ts'],
  setupFilesAfterEnv: ['<rootDir>/tests/api/helpers/deadline.ts'],
  moduleNameMapper,
});

export default async function config() {
  return { projects: [await unit(), await api()] };
}
