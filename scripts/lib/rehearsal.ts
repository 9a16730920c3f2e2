/**
 * The production rehearsal (`npm test`'s last step): what the image holds, run here, where no container
 * can be built. A temporary folder laid out as the Dockerfile lays out /app — `web/` the standalone
 * server, `worker/` the bundled worker over `npm ci --omit=dev` — whose two processes start with `node`
 * alone and NODE_ENV=production against the emulators and the sandbox, then a smoke through HTTP only:
 * sign in, create an app and a conversion, post events, see them delivered to the sandbox's Meta and
 * logged, run a connection once. Each step prints a ✓ line or fails saying what it saw; the last line is
 * `rehearsal: N passed, M failed` (CI reads it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO, DEMO_META_PIXEL } from '@/scripts/lib/demo';
import { ROOT } from '@/scripts/lib/stack';
import { stopChild } from '@/scripts/lib/worker';

/** devDependencies that must never reach the image (issue 36: `npm ls --omit=dev` names none of them). */
const DEV_ONLY = ['tsx', 'typescript', 'jest', '@playwright/test', 'playwright', 'playwright-core'];
/**
 * What the Dockerfile removes after `npm ci --omit=dev`: next names @playwright/test as an optional peer,
 * so npm keeps it and playwright ("devOptional": dev, and optional for a production package).
 */
const UNUSED_OPTIONAL_PEERS = ['@playwright', 'playwright', 'playwright-core'];
const DEMO_CONNECTION = 'Meta performance → Mixpanel';

export interface RehearsalOptions {
  /** The app's environment as the e2e step builds it: the emulators, the sandbox's fakes, APP_URL (its port is the server's). */
  env: Record<string, string>;
  /** The Next build folder whose `standalone/` is rehearsed (NEXT_DIST_DIR of the build). */
  distDir: string;
}

const workerBundle = path.join(ROOT, 'dist', 'worker.cjs');

/** Whether `npm run build`'s two artifacts are there for `distDir`, so the rehearsal alone need not build. */
export function hasBuild(distDir: string): boolean {
  return existsSync(path.join(ROOT, distDir, 'standalone', 'server.js')) && existsSync(workerBundle);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Waits until `probe` answers something, looking every `everyMs`; after `timeoutMs` fails saying what it last saw. */
async function until<T>(probe: () => Promise<T | null>, timeoutMs: number, lastSeen: () => string, everyMs = 1000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs / 1000} s; last seen: ${lastSeen()}`);
    await pause(everyMs);
  }
}

/** A child's output: the last 20,000 characters (both streams) for the failure message, and each stream whole. */
interface Started {
  name: string;
  child: ChildProcess;
  output: () => string;
  /** Everything it wrote on stdout (its log: one JSON line per entry), and on stderr. */
  stdout: () => string;
  stderr: () => string;
}

/** How much of a stream is kept whole: far more than a rehearsal writes. */
const MAX_STREAM = 20_000_000;

function start(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Started {
  // process.execPath: the project's Node (24), as the image's `node`; never tsx.
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const whole = { stdout: '', stderr: '' };
  const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (whole[stream].length < MAX_STREAM) whole[stream] += chunk.toString();
  };
  child.stdout?.on('data', collect('stdout'));
  child.stderr?.on('data', collect('stderr'));
  process.once('exit', () => child.kill('SIGKILL'));
  return { name, child, output: () => output, stdout: () => whole.stdout, stderr: () => whole.stderr };
}

function runNpm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // npm's own script runs on the Node first on PATH: this one.
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
    const child = spawn('npm', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`npm ${args.join(' ')} failed (exit ${code}):\n${output.slice(-4000)}`)),
    );
  });
}

type NpmTree = { version?: string; dependencies?: Record<string, NpmTree> };

/** The packages an `npm ls --json` tree holds installed, and those it names unmet (an optional peer left out). */
function namesIn(tree: NpmTree, names = { installed: new Set<string>(), unmet: new Set<string>() }) {
  for (const [name, node] of Object.entries(tree.dependencies ?? {})) {
    (node.version ? names.installed : names.unmet).add(name);
    namesIn(node, names);
  }
  return names;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** One HTTP call; a GET is tried again once when the connection drops (a pooled socket closed by the server). */
async function http(url: string, init: RequestInit = {}): Promise<Answer> {
  const send = () => fetch(url, { redirect: 'manual', ...init, signal: AbortSignal.timeout(30_000) });
  let response: Response;
  try {
    response = await send();
  } catch (error) {
    if ((init.method ?? 'GET') !== 'GET') throw error;
    response = await send();
  }
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: the text says what came back
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The answer when its status is `expected`; otherwise an error naming the call and what came back. */
function expectStatus(answer: Answer, expected: number, call: string): Answer {
  if (answer.status !== expected) throw new Error(`${call} answered ${answer.status}, not ${expected}: ${answer.text.slice(0, 600)}`);
  return answer;
}

/** Rehearses the image's contents here; throws once its summary line is printed when a step failed. */
export async function rehearse({ env: appEnv, distDir }: RehearsalOptions): Promise<void> {
  const began = Date.now();
  const appUrl = appEnv.APP_URL;
  const sandboxUrl = appEnv.NEXT_PUBLIC_PLATFORM_SANDBOX_URL;
  const authHost = appEnv.FIREBASE_AUTH_EMULATOR_HOST;
  if (!appUrl || !sandboxUrl || !authHost) throw new Error('rehearse needs APP_URL, the sandbox and the Auth emulator in its env');
  const port = new URL(appUrl).port;
  const folder = mkdtempSync(path.join(os.tmpdir(), 'signalbridge-rehearsal-'));
  console.log(`\n▶ rehearsal: the build output alone in ${folder}, node ${process.version}, NODE_ENV=production`);

  const steps: Array<[name: string, run: () => Promise<string>]> = [];
  const step = (name: string, run: () => Promise<string>) => steps.push([name, run]);
  const processes: Started[] = [];
  // What the steps learn, for the next ones.
  let idToken = '';
  let appId = '';
  let appKey = '';
  let conversionId = '';
  let eventIds: string[] = [];
  /** What the posted events say of their person, which no log line may hold. */
  let personal: string[] = [];
  let connectionRun = '';
  const suffix = Date.now().toString(36);
  const api = (pathname: string, init: RequestInit & { body?: string } = {}) =>
    http(`${appUrl}${pathname}`, {
      ...init,
      // As the browser's apiClient calls it: the signed-in user's ID token, JSON bodies.
      headers: {
        Authorization: `Bearer ${idToken}`,
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...init.headers,
      },
    });
  const org = `/api/orgs/${DEMO.orgId}`;

  step('the image layout: web/ (standalone), worker/ with production dependencies only', async () => {
    const standalone = path.join(ROOT, distDir, 'standalone');
    if (!hasBuild(distDir)) throw new Error(`no build: ${standalone}/server.js or ${workerBundle} is missing (npm run build)`);
    cpSync(standalone, path.join(folder, 'web'), { recursive: true, verbatimSymlinks: true });
    const worker = path.join(folder, 'worker');
    mkdirSync(path.join(worker, 'dist'), { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) cpSync(path.join(ROOT, file), path.join(worker, file));
    for (const file of ['worker.cjs', 'worker.cjs.map'])
      if (existsSync(path.join(ROOT, 'dist', file))) cpSync(path.join(ROOT, 'dist', file), path.join(worker, 'dist', file));
    const installing = Date.now();
    // --prefer-offline: npm's cache answers what it holds (the registry is asked only for what it lacks).
    await runNpm(['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], worker);
    for (const name of UNUSED_OPTIONAL_PEERS) rmSync(path.join(worker, 'node_modules', name), { recursive: true, force: true });
    const installed = seconds(installing);
    const names = namesIn(JSON.parse(await runNpm(['ls', '--omit=dev', '--all', '--json'], worker)));
    const onDisk = ['web', 'worker'].flatMap((part) =>
      DEV_ONLY.filter((name) => existsSync(path.join(folder, part, 'node_modules', name))).map((name) => `${part}/node_modules/${name}`),
    );
    const listed = DEV_ONLY.filter((name) => names.installed.has(name));
    if (listed.length || onDisk.length)
      throw new Error(
        `dev tools in the image: the worker's npm ls names ${listed.join(', ') || 'none'}; on disk: ${onDisk.join(', ') || 'none'}`,
      );
    const unmet = DEV_ONLY.filter((name) => names.unmet.has(name));
    return `npm ci --omit=dev in ${installed}, ${names.installed.size} packages, none of ${DEV_ONLY.join(', ')}${unmet.length ? ` (npm ls: ${unmet.join(', ')} unmet optional peer)` : ''}`;
  });

  step('the web server and the worker start with node alone', async () => {
    if ((await http(`${appUrl}/api/health`).catch(() => null)) !== null) throw new Error(`something already answers on ${appUrl}`);
    // The image's environment: what the deployment sets, nothing of this shell's (no tsx loader, no NODE_OPTIONS).
    const env = { PATH: process.env.PATH, HOME: os.homedir(), ...appEnv, NODE_ENV: 'production' as const };
    const web = start('web', ['web/server.js'], folder, { ...env, PORT: port, HOSTNAME: '127.0.0.1' });
    const worker = start('worker', ['--enable-source-maps', 'worker/dist/worker.cjs'], folder, env);
    processes.push(web, worker);
    const alive = (started: Started) => {
      if (started.child.exitCode !== null || started.child.signalCode !== null)
        throw new Error(`${started.name} exited (${started.child.exitCode ?? started.child.signalCode}):\n${started.output()}`);
    };
    let lastHealth = 'no answer';
    const health = await until(
      async () => {
        alive(web);
        const answer = await http(`${appUrl}/api/health`).catch((error: unknown) => String(error));
        lastHealth = typeof answer === 'string' ? answer : `${answer.status} ${answer.text.slice(0, 300)}`;
        return typeof answer !== 'string' && answer.status === 200 ? answer : null;
      },
      90_000,
      () => `/api/health: ${lastHealth}`,
    );
    await until(
      async () => {
        alive(worker);
        return worker.output().includes('delivering conversions') ? true : null;
      },
      60_000,
      () => `worker output: ${worker.output().slice(-2000)}`,
    );
    return `/api/health ${health.status}, /api/health/ready ${(await http(`${appUrl}/api/health/ready`)).status}; worker pulling`;
  });

  step('sign in: an ID token, the session cookie, a page and its scripts', async () => {
    const signIn = expectStatus(
      await http(`http://${authHost}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=rehearsal`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: DEMO.email, password: DEMO.password, returnSecureToken: true }),
      }),
      200,
      'Auth emulator signInWithPassword',
    );
    idToken = String(signIn.json.idToken ?? '');
    if (!idToken) throw new Error(`no idToken: ${signIn.text.slice(0, 300)}`);
    const session = expectStatus(await api('/api/session', { method: 'POST' }), 200, 'POST /api/session');
    const cookie = /__session=([^;]+)/.exec(session.headers.get('set-cookie') ?? '')?.[1];
    if (!cookie) throw new Error(`POST /api/session set no __session cookie: ${session.headers.get('set-cookie')}`);
    const page = expectStatus(
      await http(`${appUrl}/${DEMO.orgId}/conversion`, { headers: { Cookie: `__session=${cookie}` } }),
      200,
      `GET /${DEMO.orgId}/conversion with the session cookie`,
    );
    const script = /<script[^>]+src="(\/_next\/static\/[^"]+\.js)"/.exec(page.text)?.[1];
    if (!script) throw new Error(`the page names no /_next/static script: ${page.text.slice(0, 300)}`);
    expectStatus(await http(`${appUrl}${script}`), 200, `GET ${script}`);
    return `${DEMO.email}; /${DEMO.orgId}/conversion 200 with ${script.split('/').pop()}`;
  });

  step('an app and its secret key, through the API', async () => {
    const created = expectStatus(
      await api(`${org}/apps`, {
        method: 'POST',
        body: JSON.stringify({
          name: `Rehearsal store ${suffix}`,
          websiteUrl: 'https://rehearsal.example',
          gtmContainerId: 'GTM-REHEARSE',
          payloadUrls: ['/thank-you'],
        }),
      }),
      200,
      `POST ${org}/apps`,
    );
    appId = String((created.json.app as { id?: string } | undefined)?.id ?? '');
    if (!appId) throw new Error(`no app id: ${created.text.slice(0, 300)}`);
    const key = expectStatus(await api(`${org}/apps/${appId}/key`, { method: 'POST' }), 200, `POST ${org}/apps/${appId}/key`);
    appKey = String(key.json.key ?? '');
    if (!appKey.startsWith('sbk_')) throw new Error(`no sbk_ key: ${key.text.slice(0, 300)}`);
    return `app ${appId}, key ${appKey.slice(0, 10)}…`;
  });

  step(`a conversion: the app's Lead events → Meta pixel ${DEMO_META_PIXEL.targetId}`, async () => {
    const created = expectStatus(
      await api(`${org}/conversions`, {
        method: 'POST',
        body: JSON.stringify({
          name: `Rehearsal leads ${suffix}`,
          source: { type: 'app', appId },
          destination: {
            destinationId: DEMO_META_PIXEL.destinationId,
            accountId: DEMO_META_PIXEL.accountId,
            targetId: DEMO_META_PIXEL.targetId,
          },
          mapping: { events: ['Lead'], value: { mode: 'event' }, identifiers: ['email', 'context'] },
        }),
      }),
      200,
      `POST ${org}/conversions`,
    );
    conversionId = String((created.json.conversion as { id?: string } | undefined)?.id ?? '');
    if (!conversionId) throw new Error(`no conversion id: ${created.text.slice(0, 300)}`);
    return `conversion ${conversionId}`;
  });

  step('three events posted to /api/submissions with the app key', async () => {
    const events = [1, 2, 3].map((n) => ({
      event: 'Lead',
      eventId: `rehearsal-${suffix}-${n}`,
      occurredAt: new Date().toISOString(),
      email: `rehearsal+${n}@signalbridge.example`,
      phone: `+1 415 555 01${30 + n}`,
      firstName: 'Ottoline',
      lastName: `Quennell${'abc'[n - 1]}`,
      ip: '203.0.113.7',
      userAgent: 'Mozilla/5.0 (rehearsal)',
      pageUrl: 'https://rehearsal.example/thank-you',
      actionSource: 'website',
      value: 10 * n,
      currency: 'USD',
    }));
    const posted = expectStatus(
      await http(`${appUrl}/api/submissions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${appKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ events }),
      }),
      202,
      'POST /api/submissions',
    );
    if (posted.json.accepted !== events.length)
      throw new Error(`accepted ${String(posted.json.accepted)} of ${events.length}: ${posted.text}`);
    eventIds = events.map((event) => event.eventId);
    personal = events.flatMap((event) => [
      event.email,
      event.phone,
      event.phone.replace(/\D/g, ''),
      event.firstName,
      event.lastName,
      event.ip,
      event.userAgent,
    ]);
    return `202, ${events.length} accepted`;
  });

  step('delivered: in the conversion’s delivery log and received by the sandbox’s Meta', async () => {
    type Row = { id: string; status: string; reason?: string };
    let rows: Row[] = [];
    await until(
      async () => {
        const log = expectStatus(await api(`${org}/conversions/${conversionId}/deliveries?limit=100`), 200, 'GET deliveries');
        rows = ((log.json.deliveries ?? []) as Array<{ rows: Row[] }>)
          .flatMap((record) => record.rows)
          .filter((row) => eventIds.includes(row.id));
        const refused = rows.find((row) => row.status !== 'delivered' && row.status !== 'failed');
        if (refused) throw new Error(`event ${refused.id} logged ${refused.status}: ${refused.reason ?? ''}`);
        return eventIds.every((id) => rows.some((row) => row.id === id && row.status === 'delivered')) ? true : null;
      },
      60_000,
      () => `delivery log rows ${JSON.stringify(rows)}`,
    );
    let received: Array<{ key: string; target: string }> = [];
    const keys = eventIds.map((id) => `${DEMO_META_PIXEL.targetId}|Lead|${id}`);
    await until(
      async () => {
        const ledger = expectStatus(await http(`${sandboxUrl}/conversions.json?platform=meta`), 200, 'GET sandbox conversions.json');
        received = (ledger.json.received ?? []) as typeof received;
        return keys.every((key) => received.some((entry) => entry.key === key)) ? true : null;
      },
      15_000,
      () => `the sandbox's Meta holds none of ${keys.filter((key) => !received.some((entry) => entry.key === key)).join(', ')}`,
    );
    return `${eventIds.length} delivered in the log, ${keys.length} at pixel ${DEMO_META_PIXEL.targetId}`;
  });

  step(`a connection run once: “${DEMO_CONNECTION}” Run now → succeeded`, async () => {
    const list = expectStatus(await api(`${org}/connections`), 200, `GET ${org}/connections`);
    const connection = ((list.json.connections ?? []) as Array<{ id: string; name: string }>).find(
      (entry) => entry.name === DEMO_CONNECTION,
    );
    if (!connection) throw new Error(`no connection “${DEMO_CONNECTION}”: ${list.text.slice(0, 400)}`);
    const ran = await api(`${org}/connections/${connection.id}/run`, { method: 'POST' });
    let runId = String(ran.json.runId ?? '');
    let note = 'Run now';
    if (ran.status === 409) {
      // A scheduled run got there first: that run is the one to see through.
      const detail = expectStatus(await api(`${org}/connections/${connection.id}`), 200, 'GET connection');
      runId = String((detail.json.connection as { runningRunId?: string | null }).runningRunId ?? '');
      note = 'a run already in progress';
    } else expectStatus(ran, 200, `POST ${org}/connections/${connection.id}/run`);
    if (!runId) throw new Error(`no run id: ${ran.status} ${ran.text.slice(0, 300)}`);
    type Run = { id: string; outcome: string; rowsWritten: number; calls: number; error: string | null };
    let run: Run | undefined;
    await until(
      async () => {
        const detail = expectStatus(await api(`${org}/connections/${connection.id}`), 200, 'GET connection');
        run = ((detail.json.runs ?? []) as Run[]).find((candidate) => candidate.id === runId);
        if (run && run.outcome !== 'running' && run.outcome !== 'succeeded')
          throw new Error(`run ${runId} ended ${run.outcome}: ${run.error ?? JSON.stringify(run)}`);
        return run?.outcome === 'succeeded' ? run : null;
      },
      120_000,
      () => `run ${runId}: ${JSON.stringify(run ?? 'not listed')}`,
      2000,
    );
    if (!run || run.rowsWritten <= 0) throw new Error(`run ${runId} succeeded writing no rows: ${JSON.stringify(run)}`);
    connectionRun = runId;
    return `${note}: run ${runId}, ${run.rowsWritten} rows written in ${run.calls} calls`;
  });

  step('the logs: JSON lines in Cloud Logging’s shape, one event followed from ingest to delivery, no personal value', async () => {
    const [web, worker] = processes as [Started, Started];
    const followed = eventIds[0]!;
    type Entry = { severity?: unknown; message?: unknown; eventIds?: unknown; 'logging.googleapis.com/labels'?: Record<string, string> };
    const parse = (started: Started) => {
      // Whole lines only (the last may still be being written), blank ones aside.
      const lines = started
        .stdout()
        .split('\n')
        .slice(0, -1)
        .filter((line) => line.trim() !== '');
      // Next's own start-up banner (▲ Next.js …, - Local: …, ✓ Ready in …): plain text before the web server's first entry.
      let skipped = 0;
      if (started === web) while (skipped < lines.length && /^\s*(▲|-|✓)/u.test(lines[skipped]!)) skipped += 1;
      const entries = lines.slice(skipped).map((line) => {
        let entry: Entry;
        try {
          entry = JSON.parse(line) as Entry;
        } catch {
          throw new Error(`${started.name} wrote a line that is no JSON: ${line.slice(0, 300)}`);
        }
        if (typeof entry !== 'object' || entry === null || typeof entry.severity !== 'string' || typeof entry.message !== 'string')
          throw new Error(`${started.name} wrote a line without a severity and a message: ${line.slice(0, 300)}`);
        return entry;
      });
      return { entries, skipped };
    };
    const naming = (entries: Entry[]) => entries.filter((entry) => Array.isArray(entry.eventIds) && entry.eventIds.includes(followed));
    // The delivery line is written just after the record the previous step saw: a moment's grace.
    let seen = { web: parse(web), worker: parse(worker) };
    await until(
      async () => {
        seen = { web: parse(web), worker: parse(worker) };
        return naming(seen.web.entries).length > 0 && naming(seen.worker.entries).length > 0 ? true : null;
      },
      10_000,
      () =>
        `event ${followed}: web lines ${JSON.stringify(naming(seen.web.entries))}, worker lines ${JSON.stringify(naming(seen.worker.entries))}; ` +
        `worker's last lines: ${worker.stdout().slice(-1500)}`,
      250,
    );
    // The connection's run: its lines carry its organization, connection and run.
    const runLines = seen.worker.entries.filter((entry) => entry['logging.googleapis.com/labels']?.run === connectionRun);
    const unlabelled = runLines.filter(
      (entry) => !entry['logging.googleapis.com/labels']?.org || !entry['logging.googleapis.com/labels']?.connection,
    );
    if (runLines.length === 0 || unlabelled.length > 0)
      throw new Error(`run ${connectionRun}: ${runLines.length} worker lines, ${unlabelled.length} without org and connection labels`);
    const ingest = naming(seen.web.entries)[0]!;
    const delivery = naming(seen.worker.entries)[0]!;
    const leaks = [web, worker].flatMap((started) =>
      [...new Set(personal.flatMap((value) => [value, value.toLowerCase()]))]
        .filter((value) => started.stdout().includes(value) || started.stderr().includes(value))
        .map((value) => `${started.name}: ${value}`),
    );
    if (leaks.length) throw new Error(`personal values in the logs: ${leaks.join(', ')}`);
    const lines = seen.web.entries.length + seen.worker.entries.length;
    return (
      `${lines} JSON lines (web ${seen.web.entries.length}${seen.web.skipped ? ` + ${seen.web.skipped} of Next's banner` : ''}, worker ${seen.worker.entries.length}); ` +
      `${followed}: web “${String(ingest.message)}” ${JSON.stringify(ingest['logging.googleapis.com/labels'] ?? {})}, ` +
      `worker “${String(delivery.message)}” ${JSON.stringify(delivery['logging.googleapis.com/labels'] ?? {})}; ` +
      `run ${connectionRun}: ${runLines.length} lines labelled org + connection + run; ` +
      `none of ${personal.length} personal values (email, phone, names, IP, agent; lowercased too) in either output`
    );
  });

  let passed = 0;
  let failed = 0;
  try {
    for (const [name, run] of steps) {
      const stepBegan = Date.now();
      try {
        const detail = await run();
        passed += 1;
        console.log(`  ✓ ${name} — ${detail} (${seconds(stepBegan)})`);
      } catch (error) {
        failed += 1;
        console.log(`  ✗ ${name} (${seconds(stepBegan)})\n    ${error instanceof Error ? error.message : String(error)}`);
        for (const started of processes) console.log(`  --- ${started.name}, last output:\n${started.output().slice(-3000)}`);
        break;
      }
    }
  } finally {
    await Promise.all(processes.map(({ child }) => stopChild(child)));
    rmSync(folder, { recursive: true, force: true });
  }
  const notRun = steps.length - passed - failed;
  console.log(`  (${seconds(began)} in all, the processes stopped and ${folder} removed)`);
  console.log(`rehearsal: ${passed} passed, ${failed} failed${notRun ? `, ${notRun} not run` : ''}`);
  if (failed) throw new Error('the production rehearsal failed');
}
