/**
 * `npm run bench`: what we measure instead of asserting timings in tests.
 * 1. First-load JS per route (raw and gzip) of a production build: Next 16 no longer prints it.
 * 2. Cold start of the emulator stack.
 * 3. Latency of an authenticated, membership-checked API request against the emulators.
 * 4. The super admin's organization list with 10,000 organizations: first page, a search, a deep page.
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

function report(label: string, samples: number[]) {
  samples.sort((a, b) => a - b);
  console.log(
    `${label}: p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms, ` +
      `max ${samples.at(-1)!.toFixed(1)} ms`,
  );
}

type Fixtures = typeof import('@/tests/fixtures/firebase');
type Server = typeof import('@/tests/api/helpers/server');

async function superAdminList(
  createTestUser: Fixtures['createTestUser'],
  call: Server['call'],
  serveHandler: Server['serveHandler'],
) {
  const { adminDb } = await import('@/lib/server/firebaseAdmin');
  const { default: handler } = await import('@/pages/api/getOrganizationIds');
  const COUNT = 10_000;
  const started = performance.now();
  for (let offset = 0; offset < COUNT; offset += 500) {
    const batch = adminDb().batch();
    for (let i = offset; i < Math.min(COUNT, offset + 500); i++) {
      const name = `Bench Org ${String(i).padStart(5, '0')}`;
      batch.set(adminDb().collection('organizations').doc(`bench-${i}`), {
        name,
        company_name: name,
        name_lower: name.toLowerCase(),
        logo: null,
        company_logo: null,
        connections_count: i % 7,
      });
    }
    await batch.commit();
  }
  console.log(`Seeded ${COUNT} organizations in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const admin = await createTestUser({ superAdmin: true });
  const server = await serveHandler(handler);
  const list = (query: Record<string, string>) =>
    call(server, { token: admin.token, query: { userId: admin.uid, superadmin: 'true', ...query } });
  const time = async (label: string, query: () => Promise<Record<string, string>>) => {
    const samples: number[] = [];
    for (let i = 0; i < 50; i++) {
      const q = await query();
      const t = performance.now();
      const response = await list(q);
      samples.push(performance.now() - t);
      if (response.status !== 200 || !(response.body.organizations as unknown[]).length) throw new Error(label);
    }
    report(label, samples);
  };
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) cursor = (await list(cursor ? { cursor } : {})).body.nextCursor as string;
  await time(`super admin, ${COUNT} organizations, first page of 50`, async () => ({}));
  await time(`super admin, ${COUNT} organizations, name search "bench org 0999"`, async () => ({ search: 'bench org 0999' }));
  await time(`super admin, ${COUNT} organizations, page 101 by cursor`, async () => ({ cursor: cursor! }));
  await server.close();
}

/** Connecting an account end to end through the sandbox, listing sources, listing a login's ad accounts. */
async function integrations(
  createTestUser: Fixtures['createTestUser'],
  createTestOrganization: Fixtures['createTestOrganization'],
  call: Server['call'],
  serveHandler: Server['serveHandler'],
) {
  const { consentTo, platformsEnv, startFakePlatforms } = await import('@/tests/fakes/platforms');
  const platforms = await startFakePlatforms({ appUrl: 'http://bench.test' });
  Object.assign(process.env, platformsEnv(platforms), { APP_URL: 'http://bench.test' });
  const [start, complete, sources, accounts] = await Promise.all(
    ['oauth/start', 'oauth/complete', 'sources/index', 'sources/[id]/accounts'].map(async (route) =>
      serveHandler((await import(`@/pages/api/orgs/[orgId]/${route}`)).default),
    ),
  );
  const user = await createTestUser();
  const orgId = await createTestOrganization([[user, 'owner']]);
  const connect = async () => {
    const started = await call(start!, { method: 'POST', token: user.token, query: { orgId }, body: { platform: 'google_ads', kind: 'source' } });
    const back = await consentTo(started.body.url as string);
    const done = await call(complete!, {
      method: 'POST',
      token: user.token,
      query: { orgId },
      body: { state: back.searchParams.get('state'), code: back.searchParams.get('code'), returnPath: back.pathname },
    });
    if (done.status !== 200) throw new Error(`connect failed: ${done.status}`);
    return done.body.id as string;
  };
  const timed = async (label: string, count: number, run: () => Promise<unknown>) => {
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await run();
      samples.push(performance.now() - t);
    }
    report(label, samples);
  };
  let sourceId = '';
  await timed('Google Ads connect round trip (start → sandbox consent → code exchange → source created), 50 times', 50, async () => {
    sourceId = await connect();
  });
  await timed('GET sources of an organization with 50 sources, 200 requests', 200, () => call(sources!, { token: user.token, query: { orgId } }));
  await timed('GET a source’s ad accounts (token refresh + listAccessibleCustomers + manager walk), 100 requests', 100, async () => {
    const response = await call(accounts!, { token: user.token, query: { orgId, id: sourceId } });
    if (response.status !== 200) throw new Error(`accounts failed: ${response.status}`);
  });
  await Promise.all([start, complete, sources, accounts].map((server) => server!.close()));
  await platforms.close();
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
    report('GET /api/getOrganizationData (token check + org and membership read), 300 sequential requests', samples);
    await superAdminList(createTestUser, call, serveHandler);
    await integrations(createTestUser, createTestOrganization, call, serveHandler);
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
