import nextCoreWebVitals from 'eslint-config-next/core-web-vitals';
import nextTypescript from 'eslint-config-next/typescript';
import prettier from 'eslint-config-prettier/flat';

const ADMIN = { group: ['firebase-admin', 'firebase-admin/*'], message: 'Server only: use it from lib/server or pages/api.' };
const SERVER = {
  regex: '^@/lib/server/(?!connectors/[^/]+/platform$)',
  message: "Server only: call the API instead (a connector folder's platform.ts, its catalogue record, is the exception).",
};
const SANDBOX = { group: ['@/sandbox/*'], message: 'The sandbox is local Node servers (dev, tests, bench): app code never imports it.' };
const STORE = { group: ['@/store/*'], message: 'lib/ code does not import the store: take a callback or return data instead.' };
const BROWSER = {
  group: ['@/store/*', '@/components/*', '@/layouts/*', '@/lib/client/*'],
  message: 'Server code never imports the browser side.',
};
const NEXT = { group: ['next', 'next/*'], message: 'Only lib/server/http and pages know HTTP and Next.' };
const STORAGE = {
  group: ['@/lib/server/repos/*', '@/lib/server/firebaseAdmin', '@/lib/server/credentials', '@/lib/server/services/*'],
  message: 'Connectors neither read nor write storage: the service that calls them does.',
};

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    ignores: [
      'node_modules/**',
      'tools/**',
      '.next/**',
      '.next-e2e*/**',
      '.next-bench/**',
      '.bench-bare/**',
      '.stack/**',
      'dist/**',
      'test-results/**',
      'playwright-report/**',
      'next-env.d.ts',
    ],
  },
  {
    // The browser side, and the rest of lib/, never reach server code (docs/architecture/overview.md, "Layers").
    files: ['components/**', 'layouts/**', 'store/**', 'pages/**', 'lib/**'],
    ignores: ['pages/api/**', 'lib/server/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ADMIN, SERVER, SANDBOX] }] },
  },
  {
    // Browser library code serves the store and the pages; it never reaches back into the store.
    files: ['lib/client/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ADMIN, SERVER, SANDBOX, STORE] }] },
  },
  {
    // lib/shared runs anywhere: the browser, the server and the workers.
    files: ['lib/shared/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ADMIN, SERVER, SANDBOX, BROWSER] }] },
  },
  {
    // Only the HTTP layer of lib/server knows Next: services, repos and connectors also run in workers.
    files: ['lib/server/**'],
    ignores: ['lib/server/http/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NEXT, SANDBOX, BROWSER] }] },
  },
  {
    files: ['lib/server/http/**', 'pages/api/**', 'middleware.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [SANDBOX, BROWSER] }] },
  },
  {
    // A connector speaks to one platform; storage is its caller's business.
    files: ['lib/server/connectors/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NEXT, SANDBOX, BROWSER, ADMIN, STORAGE] }] },
  },
  {
    // The import graph has no circle, type-only imports included (docs/architecture/overview.md, "Layers").
    files: ['lib/**', 'components/**', 'layouts/**', 'store/**', 'pages/**', 'workers/**', 'sandbox/**'],
    rules: { 'import/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // Layout is Prettier's (npm run lint checks it): no style rule may disagree with it.
  prettier,
];

export default config;
