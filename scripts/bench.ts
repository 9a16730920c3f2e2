/**
 * `npm run bench`: what we measure instead of asserting timings in tests.
 * 1. First-load JS per route (raw and gzip) of a production build: Next 16 no longer prints it.
 * 2. Cold start of the emulator stack.
 * 3. Latency of an authenticated, membership-checked API request against the emulators.
 * `--skip-build` reuses the last bench build.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { portsFromEnv, ROOT, startStack, TEST_PORTS } from '@/scripts/lib/stack';

const DIST = '.next-bench';

interface BuildManifest {
  pages: Record<string, string[]>;
  rootMainFiles: string[];
  polyfillFiles: string[];
}

function firstLoadJs() {
  if (!process.argv.includes('--skip-build') || !existsSync(path.join(ROOT, DIST))) {
    execSync('npx next build', { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NEXT_DIST_DIR: DIST, NEXT_TELEMETRY_DISABLED: '1' } });
  }
  const manifest: BuildManifest = JSON.parse(readFileSync(path.join(ROOT, DIST, 'build-manifest.json'), 'utf8'));
  const sizeOf = (file: string) => {
    const bytes = readFileSync(path.join(ROOT, DIST, file));
    return { raw: bytes.length, gzip: gzipSync(bytes).length };
  };
  const shared = new Set([...manifest.rootMainFiles, ...(manifest.pages['/_app'] ?? [])]);
  const rows = Object.entries(manifest.pages)
    .filter(([route]) => route !== '/_app' && route !== '/_error')
    .map(([route, files]) => {
      const all = new Set([...shared, ...files].filter((file) => file.endsWith('.js')));
      const total = [...all].map(sizeOf).reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip }), { raw: 0, gzip: 0 });
      return { route, ...total };
    })
    .sort((a, b) => a.route.localeCompare(b.route));
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  console.log('\nFirst-load JS per route (all chunks a cold visit downloads):');
  console.log('| route | raw | gzip |\n|---|---:|---:|');
  for (const row of rows) console.log(`| ${row.route} | ${kb(row.raw)} | ${kb(row.gzip)} |`);
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function stackAndApi() {
  const started = performance.now();
  const stack = await startStack(portsFromEnv(TEST_PORTS));
  console.log(`\nEmulator stack cold start: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  Object.assign(process.env, stack.env);
  try {
    const { createTestOrganization, createTestUser } = await import('@/tests/fixtures/firebase');
    const { call, serveHandler } = await import('@/tests/api/helpers/server');
    const { default: handler } = await import('@/pages/api/getOrganizationData');
    const user = await createTestUser();
    const orgId = await createTestOrganization([[user, 'member']]);
    const server = await serveHandler(handler);
    const request = () => call(server, { query: { documentId: orgId, type: 'organization' }, token: user.token });
    for (let i = 0; i < 20; i++) await request(); // warm-up
    const samples: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      const response = await request();
      samples.push(performance.now() - t);
      if (response.status !== 200) throw new Error(`unexpected ${response.status}`);
    }
    await server.close();
    samples.sort((a, b) => a - b);
    console.log(
      `GET /api/getOrganizationData (token check + org and membership read), 300 sequential requests: ` +
        `p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms, ` +
        `max ${samples.at(-1)!.toFixed(1)} ms`,
    );
  } finally {
    await stack.stop();
  }
}

async function main() {
  firstLoadJs();
  await stackAndApi();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
