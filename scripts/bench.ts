/**
 * `npm run bench`: what we measure instead of asserting timings in tests.
 * 1. First-load JS per route (raw and gzip) of a production build: Next 16 no longer prints it.
 * 2. Cold start of the emulator stack.
 * 3. Latency of an authenticated, membership-checked API request against the emulators.
 * 4. The super admin's organization list with 10,000 organizations: first page, a search, a deep page.
 * 5. Connecting an account through the sandbox, listing sources, listing a login's ad accounts.
 * 6. The conversions pipeline on a stack of its own: ingest beside a bare 202 route, end to end through
 *    one worker to the sandbox's Meta beside the Pub/Sub emulator's own rate (scripts/lib/benchConversions.ts).
 * 7. Connection syncs on a stack of its own: a 2-year and a 6-month Google Ads backfill (3 accounts × 50
 *    campaigns, ad-group level) through one worker into the sandbox's BigQuery and Mixpanel — rows/s beside
 *    the same rows pushed through the writer alone, API calls beside their floor, the worker's peak memory
 *    (scripts/lib/benchSync.ts).
 * 8. Conversions read from the warehouse on a stack of its own: BigQuery tables of 50,000 and 200,000 rows
 *    through one worker to the sandbox's Meta — rows/s beside the reader alone and the Pub/Sub emulator
 *    alone, Meta calls beside ⌈N/1,000⌉, the worker's peak memory as the table grows (scripts/lib/benchWarehouse.ts).
 * 9. Delivery lanes on a stack of its own: Google's delivery p95 while the sandbox's Meta hangs, beside the
 *    same with nothing hanging (scripts/lib/benchLanes.ts).
 * 10. Counted by the platform: report calls for 100 conversions beside the floor (accounts × days read), and the
 *    read's time beside the connectors' bare reads (scripts/lib/benchReconcile.ts).
 * 11. What a million events and a two-year backfill cost in Firestore and Pub/Sub: reads, writes, deletes,
 *    storage and bytes published and delivered, counted in every process, by stage, at docs/cost.md's list
 *    prices (scripts/lib/benchCost.ts).
 * Every figure stands beside a bare baseline of the same run (machines here are shared and absolute
 * times drift): first-load JS beside a one-page Next + React app, API latency beside a bare
 * authenticated read (verify the ID token + one document get).
 * `--skip-build` reuses the last bench build; `--only js|api|conversions|sync|warehouse|lanes|reconcile|cost` runs
 * section 1, 2–5, 6, 7, 8, 9, 10 or 11 alone.
 */
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { benchConversions } from '@/scripts/lib/benchConversions';
import { benchCost } from '@/scripts/lib/benchCost';
import { benchLanes } from '@/scripts/lib/benchLanes';
import { benchSync } from '@/scripts/lib/benchSync';
import { benchWarehouse } from '@/scripts/lib/benchWarehouse';
import { benchReconcile } from '@/scripts/lib/benchReconcile';
import { portsFromEnv, ROOT, startStack, TEST_PORTS } from '@/scripts/lib/stack';

const DIST = '.next-bench';
/** A one-page Next + React app built the same way: the floor every route is measured against. */
const BARE_APP = '.bench-bare';

interface BuildManifest {
  pages: Record<string, string[]>;
  rootMainFiles: string[];
  polyfillFiles: string[];
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}×`;

/** gzip and raw bytes of every chunk a cold visit to each route downloads, from a build's manifest. */
function routeSizes(dist: string) {
  const manifest: BuildManifest = JSON.parse(readFileSync(path.join(dist, 'build-manifest.json'), 'utf8'));
  const sizeOf = (file: string) => {
    const bytes = readFileSync(path.join(dist, file));
    return { raw: bytes.length, gzip: gzipSync(bytes).length };
  };
  const shared = new Set([...manifest.rootMainFiles, ...(manifest.pages['/_app'] ?? [])]);
  return Object.entries(manifest.pages)
    .filter(([route]) => route !== '/_app' && route !== '/_error')
    .map(([route, files]) => {
      const all = new Set([...shared, ...files].filter((file) => file.endsWith('.js')));
      const total = [...all].map(sizeOf).reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip }), { raw: 0, gzip: 0 });
      return { route, ...total };
    })
    .sort((a, b) => a.route.localeCompare(b.route));
}

/** Builds the bare app (its own next.config, one page) inside the repo so it resolves our node_modules. */
function bareAppSize(): number {
  const dir = path.join(ROOT, BARE_APP);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'pages'), { recursive: true });
  writeFileSync(path.join(dir, 'next.config.js'), 'module.exports = { reactStrictMode: true };\n');
  writeFileSync(path.join(dir, 'pages/index.js'), 'export default function Home() {\n  return <main>Hello</main>;\n}\n');
  execSync('npx next build .', { cwd: dir, stdio: 'ignore', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
  return routeSizes(path.join(dir, '.next')).find((row) => row.route === '/')!.gzip;
}

function firstLoadJs() {
  if (!process.argv.includes('--skip-build') || !existsSync(path.join(ROOT, DIST))) {
    execSync('npx next build', { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NEXT_DIST_DIR: DIST, NEXT_TELEMETRY_DISABLED: '1' } });
  }
  const bare = bareAppSize();
  const rows = routeSizes(path.join(ROOT, DIST));
  console.log(`\nFirst-load JS per route (all chunks a cold visit downloads), beside a bare Next + React page: ${kb(bare)} gzip`);
  console.log('| route | raw | gzip | × bare |\n|---|---:|---:|---:|');
  for (const row of rows) console.log(`| ${row.route} | ${kb(row.raw)} | ${kb(row.gzip)} | ${ratio(row.gzip, bare)} |`);
  const worst = rows.reduce((a, b) => (b.gzip > a.gzip ? b : a));
  console.log(`Largest: ${worst.route} ${ratio(worst.gzip, bare)} the bare page (target ≤ 1.40× on every route).`);
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Latency {
  p50: number;
  p95: number;
}

/** The bare authenticated read every API figure is divided by; set once per run, before the others. */
let baseline: Latency | undefined;

function report(label: string, samples: number[]): Latency {
  samples.sort((a, b) => a - b);
  const latency = { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  const versus = (key: keyof Latency) => (baseline ? ` (${ratio(latency[key], baseline[key])})` : '');
  console.log(
    `${label}: p50 ${latency.p50.toFixed(1)} ms${versus('p50')}, p95 ${latency.p95.toFixed(1)} ms${versus('p95')}, ` +
      `max ${samples.at(-1)!.toFixed(1)} ms`,
  );
  return latency;
}

async function sample(count: number, run: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await run();
    samples.push(performance.now() - t);
  }
  return samples;
}

type Fixtures = typeof import('@/tests/fixtures/firebase');
type Server = typeof import('@/tests/api/helpers/server');

async function superAdminList(createTestUser: Fixtures['createTestUser'], call: Server['call'], serveHandler: Server['serveHandler']) {
  const { adminDb } = await import('@/lib/server/firebaseAdmin');
  const { default: handler } = await import('@/pages/api/getOrganizationIds');
  const COUNT = 10_000;
  let seedingMs = 0;
  const seed = async (from: number, to: number) => {
    const started = performance.now();
    for (let offset = from; offset < to; offset += 500) {
      const batch = adminDb().batch();
      for (let i = offset; i < Math.min(to, offset + 500); i++) {
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
    seedingMs += performance.now() - started;
  };

  const admin = await createTestUser({ superAdmin: true });
  const server = await serveHandler(handler);
  const list = (query: Record<string, string>) =>
    call(server, { token: admin.token, query: { userId: admin.uid, superadmin: 'true', ...query } });
  const time = async (label: string, query: Record<string, string>) => {
    const samples = await sample(50, async () => {
      const response = await list(query);
      if (response.status !== 200 || !(response.body.organizations as unknown[]).length) throw new Error(label);
    });
    report(label, samples);
  };
  // The same first page at a tenth of the organizations: the emulator answers an ordered query by
  // scanning the collection, so its time grows with the collection (Firestore's index does not).
  await seed(0, COUNT / 10);
  await time(`super admin, ${COUNT / 10} organizations, first page of 50`, {});
  await seed(COUNT / 10, COUNT);
  console.log(`Seeded ${COUNT} organizations in ${(seedingMs / 1000).toFixed(1)} s`);
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) cursor = (await list(cursor ? { cursor } : {})).body.nextCursor as string;
  await time(`super admin, ${COUNT} organizations, first page of 50`, {});
  await time(`super admin, ${COUNT} organizations, name search "bench org 0999"`, { search: 'bench org 0999' });
  await time(`super admin, ${COUNT} organizations, page 101 by cursor`, { cursor: cursor! });
  await server.close();
}

/** Connecting an account end to end through the sandbox, listing sources, listing a login's ad accounts. */
async function integrations(
  createTestUser: Fixtures['createTestUser'],
  createTestOrganization: Fixtures['createTestOrganization'],
  call: Server['call'],
  serveHandler: Server['serveHandler'],
) {
  const { completionOf, consentTo, platformsEnv, startFakePlatforms } = await import('@/sandbox/platforms');
  const platforms = await startFakePlatforms({ appUrl: 'http://bench.test' });
  Object.assign(process.env, platformsEnv(platforms), { APP_URL: 'http://bench.test' });
  const [start, complete, sources, accounts] = await Promise.all(
    ['oauth/start', 'oauth/complete', 'sources/index', 'sources/[id]/accounts'].map(async (route) =>
      serveHandler((await import(`@/pages/api/orgs/[orgId]/${route}`)).default),
    ),
  );
  const user = await createTestUser();
  const orgId = await createTestOrganization([[user, 'owner']]);
  // Each of the two API calls of a connect is timed on its own too: the round trip also holds the
  // consent page, which is Google's (the sandbox's), not ours.
  const startTimes: number[] = [];
  const completeTimes: number[] = [];
  const clock = async <T>(into: number[], run: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const result = await run();
    into.push(performance.now() - t);
    return result;
  };
  const connect = async () => {
    const started = await clock(startTimes, () =>
      call(start!, { method: 'POST', token: user.token, query: { orgId }, body: { platform: 'google_ads', kind: 'source' } }),
    );
    const back = await consentTo(started.body.url as string);
    const done = await clock(completeTimes, () =>
      call(complete!, {
        method: 'POST',
        token: user.token,
        query: { orgId },
        body: completionOf(back),
      }),
    );
    if (done.status !== 200) throw new Error(`connect failed: ${done.status}`);
    return done.body.id as string;
  };
  const timed = async (label: string, count: number, run: () => Promise<unknown>) => report(label, await sample(count, run));
  let sourceId = '';
  await timed('Google Ads connect round trip (start → sandbox consent → code exchange → source created), 50 times', 50, async () => {
    sourceId = await connect();
  });
  report('  of which POST oauth/start (state written, consent URL answered)', startTimes);
  report(
    '  of which POST oauth/complete (state spent, code exchange and the login’s email from Google, credential sealed, source created)',
    completeTimes,
  );
  await timed('GET sources of an organization with 50 sources, 200 requests', 200, () =>
    call(sources!, { token: user.token, query: { orgId } }),
  );
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
    const { adminAuth, adminDb } = await import('@/lib/server/firebaseAdmin');
    const { default: handler } = await import('@/pages/api/getOrganizationData');
    const user = await createTestUser();
    const orgId = await createTestOrganization([[user, 'member']]);

    // The floor: verify the ID token and read one document, with nothing of ours around it.
    const bare = await serveHandler(async (req, res) => {
      const { uid } = await adminAuth().verifyIdToken(String(req.headers.authorization).slice('Bearer '.length));
      const member = await adminDb().doc(`organizations/${orgId}/members/${uid}`).get();
      res.status(member.exists ? 200 : 404).json({ ok: member.exists });
    });
    const server = await serveHandler(handler);
    const bareRead = () => call(bare, { token: user.token });
    const request = () => call(server, { query: { documentId: orgId, type: 'organization' }, token: user.token });
    for (let i = 0; i < 20; i++) await Promise.all([bareRead(), request()]); // warm-up
    console.log('\nAPI latency, each beside the bare authenticated read (verify the ID token + one document get) of this run:');
    baseline = report('bare authenticated Firestore read, 300 sequential requests', await sample(300, bareRead));
    report(
      'GET /api/getOrganizationData (token check + org and membership read), 300 sequential requests',
      await sample(300, async () => {
        const response = await request();
        if (response.status !== 200) throw new Error(`unexpected ${response.status}`);
      }),
    );
    await Promise.all([server.close(), bare.close()]);
    await superAdminList(createTestUser, call, serveHandler);
    await integrations(createTestUser, createTestOrganization, call, serveHandler);
  } finally {
    await stack.stop();
  }
}

const SECTIONS = ['js', 'api', 'conversions', 'sync', 'warehouse', 'lanes', 'reconcile', 'cost'] as const;

async function main() {
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
  if (only !== undefined && !(SECTIONS as readonly string[]).includes(only)) throw new Error(`--only takes one of ${SECTIONS.join(', ')}`);
  if (!only || only === 'js') firstLoadJs();
  if (!only || only === 'api') await stackAndApi();
  if (!only || only === 'conversions') await benchConversions();
  if (!only || only === 'sync') await benchSync();
  if (!only || only === 'warehouse') await benchWarehouse();
  if (!only || only === 'lanes') await benchLanes();
  if (!only || only === 'reconcile') await benchReconcile();
  if (!only || only === 'cost') await benchCost();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
