/**
 * `npm test`: lint, typecheck, Jest unit tests, then — with the emulators this script starts and
 * stops — Jest API tests, Playwright e2e in Chromium against a production build, and the production
 * rehearsal of that build (scripts/lib/rehearsal.ts). `--only <step>` runs one step (lint, typecheck,
 * unit, api, e2e, rehearsal).
 */
import { spawn } from 'node:child_process';
import { DEMO } from '@/scripts/lib/demo';
import { assertProjectNode } from '@/scripts/lib/projectNode';
import { hasBuild, rehearse } from '@/scripts/lib/rehearsal';
import { portsFromEnv, ROOT, startStack, stopOnSignals, TEST_PORTS, type RunningStack } from '@/scripts/lib/stack';
import { startWorker } from '@/scripts/lib/worker';
import { customerIoEnv, startFakeCustomerIo } from '@/sandbox/customerio';
import { platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { startFakeStripe, stripeEnv } from '@/sandbox/stripe';

const E2E_PORT = Number(process.env.E2E_PORT || 3100);
// Another folder (`.next-e2e-…`) lets two test runs build side by side.
const E2E_DIST_DIR = process.env.E2E_DIST_DIR || '.next-e2e';

function run(label: string, command: string, env: Record<string, string> = {}): Promise<void> {
  console.log(`\n▶ ${label}: ${command}`);
  return new Promise((resolve, reject) => {
    const child = spawn(command, { cwd: ROOT, shell: true, stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${label} failed (exit ${code})`))));
  });
}

type Step = 'lint' | 'typecheck' | 'unit' | 'api' | 'e2e' | 'rehearsal';
const STEPS: Step[] = ['lint', 'typecheck', 'unit', 'api', 'e2e', 'rehearsal'];

async function main() {
  assertProjectNode();
  const onlyIndex = process.argv.indexOf('--only');
  const only = onlyIndex >= 0 ? (process.argv[onlyIndex + 1]?.split(',') as Step[]) : STEPS;
  const wants = (step: Step) => only.includes(step);

  if (wants('lint')) await run('lint', 'npm run lint');
  if (wants('typecheck')) await run('typecheck', 'npx tsc --noEmit');
  if (wants('unit')) await run('unit tests', 'npx jest --selectProjects unit');
  if (!wants('api') && !wants('e2e') && !wants('rehearsal')) return;

  console.log('\n▶ starting the emulators');
  const stack: RunningStack = await startStack(portsFromEnv(TEST_PORTS));
  stopOnSignals(stack.stop);
  try {
    const env = { ...stack.env, NEXT_TELEMETRY_DISABLED: '1' };
    if (wants('api')) await run('API tests', 'npx jest --selectProjects api', env);
    if (wants('e2e') || wants('rehearsal')) {
      const customerIo = await startFakeCustomerIo();
      const fakeStripe = await startFakeStripe({ webhookUrl: `http://127.0.0.1:${E2E_PORT}/api/billing/webhook` });
      const platforms = await startFakePlatforms({ appUrl: `http://127.0.0.1:${E2E_PORT}` });
      const appEnv = {
        ...env,
        ...platformsEnv(platforms),
        ...customerIoEnv(customerIo),
        ...stripeEnv(fakeStripe),
        APP_URL: `http://127.0.0.1:${E2E_PORT}`,
        NEXT_DIST_DIR: E2E_DIST_DIR,
        NEXT_PUBLIC_DEMO_ORG_ID: DEMO.orgId,
        E2E_PORT: String(E2E_PORT),
      };
      try {
        // The rehearsal alone reuses the e2e build when there is one.
        if (wants('e2e') || !hasBuild(E2E_DIST_DIR)) await run('production build', 'npx tsx scripts/build.ts', appEnv);
        await run('seed', 'npx tsx scripts/seed.ts', appEnv);
        if (wants('e2e')) {
          // Payments are read every 2 s here (20 s by default), so a test payment arrives within the test's patience.
          const worker = startWorker(
            { ...appEnv, PAYMENTS_POLL_MS: '2000', WAREHOUSE_POLL_MS: '2000', SYNC_TICK_MS: '2000' },
            { quiet: true },
          );
          try {
            await run('e2e tests', `npx playwright test ${process.env.PLAYWRIGHT_ARGS ?? ''}`.trim(), appEnv);
          } finally {
            await worker.stop();
          }
        }
        // After the e2e server and worker stopped: what the rehearsal sends, only its own processes handle.
        if (wants('rehearsal')) await rehearse({ env: appEnv, distDir: E2E_DIST_DIR });
      } finally {
        await Promise.all([customerIo.close(), fakeStripe.close(), platforms.close()]);
      }
    }
  } finally {
    await stack.stop();
  }
}

main().then(
  () => console.log('\n✔ all checks passed'),
  (error) => {
    console.error(`\n✖ ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  },
);
