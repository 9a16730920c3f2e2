import { defineConfig, devices } from 'playwright/test';
import { KEEP_ALIVE_MS } from './sandbox/server';

const port = Number(process.env.E2E_PORT || 3100);
const distDir = process.env.NEXT_DIST_DIR || '.next';

/** Debian's Chromium, never a downloaded browser (this machine has no internet). */
const chromium = {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--headless',
    '--disable-gpu',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};

export default defineConfig({
  testDir: 'tests/e2e',
  fullyParallel: true,
  workers: 2,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  reporter: [['list']],
  // Deadlines, not sleeps: on a busy 2-core machine (CI beside another stack) a navigation through the guard
  // can take several seconds, and CI has run the whole suite three times slower than a quiet machine (a
  // 17 s test took 49 s). Assertions wait up to 15 s and a test up to 120 s before they fail.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: 'retain-on-failure',
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions: chromium } }],
  webServer: {
    // `npm test` builds first (`npm run build`'s standalone server, into NEXT_DIST_DIR) and starts the
    // emulators: the e2e tests drive the server production runs. Idle connections stay open as long as
    // the fakes' (sandbox/server.ts says why), so a pooled request never meets a socket the server is closing.
    command: `node ${distDir}/standalone/server.js`,
    env: { PORT: String(port), HOSTNAME: '127.0.0.1', KEEP_ALIVE_TIMEOUT: String(KEEP_ALIVE_MS) },
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 60_000,
    reuseExistingServer: !process.env.CI,
  },
});
