import nextCoreWebVitals from 'eslint-config-next/core-web-vitals';
import nextTypescript from 'eslint-config-next/typescript';

const config = [
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    ignores: ['node_modules/**', 'tools/**', '.next/**', '.next-e2e*/**', '.next-bench/**', '.bench-bare/**', '.stack/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts'],
  },
  {
    // The browser side never reaches server code (STYLE.md).
    files: ['components/**', 'layouts/**', 'store/**', 'lib/schemas/**', 'lib/firebase/**', 'pages/**'],
    ignores: ['pages/api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['firebase-admin', 'firebase-admin/*'], message: 'Server only: use it from lib/server or pages/api.' },
            { group: ['@/lib/server/*'], message: 'Server only: call the API instead.' },
            { group: ['@/sandbox/*'], message: 'The sandbox is local Node servers (dev, tests, bench): a page never imports it.' },
          ],
        },
      ],
    },
  },
];

export default config;
