import nextJest from 'next/jest.js';

const createJestConfig = nextJest({ dir: './' });

const moduleNameMapper = { '^@/(.*)$': '<rootDir>/$1' };

// Packages published only as ES modules, which Jest's module registry must compile to CommonJS like our own code.
const esmOnly = ['p-queue', 'p-timeout', 'eventemitter3', 'jose'];
// next/jest adds its own '/node_modules/' pattern, so the list is replaced once its config is built.
const transformIgnorePatterns = [`/node_modules/(?!(${esmOnly.join('|')})/)`, '^.+\\.module\\.(css|sass|scss)$'];
const compilingEsm = (project) => ({ ...project, transformIgnorePatterns });

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
  testMatch: ['<rootDir>/tests/api/**/*.test.ts', '<rootDir>/tests/contract/**/*.test.ts'],
  setupFiles: ['<rootDir>/tests/api/helpers/requireEmulators.ts', '<rootDir>/tests/api/helpers/teenyRequest.ts'],
  setupFilesAfterEnv: ['<rootDir>/tests/api/helpers/deadline.ts'],
  moduleNameMapper,
});

export default async function config() {
  return { projects: [compilingEsm(await unit()), compilingEsm(await api())] };
}
