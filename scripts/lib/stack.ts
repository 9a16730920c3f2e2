/**
 * The local stack: the Firebase Auth emulator (firebase-tools), the official Firestore emulator
 * (the Google Cloud CLI's jar, or `firebase emulators` with Java 21 where the CLI is missing) and
 * the Google Cloud CLI's Pub/Sub emulator (the data plane's queue).
 * Started as process groups so that stopping them leaves no Java behind.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
const FIREBASE_BIN = path.join(ROOT, 'tools/firebase/node_modules/.bin/firebase');
const GCLOUD_FIRESTORE_JAR = [
  process.env.FIRESTORE_EMULATOR_JAR,
  '/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar',
  '/usr/share/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar',
  '/google-cloud-sdk/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar',
].find((candidate): candidate is string => Boolean(candidate && existsSync(candidate)));
const GCLOUD_PUBSUB_EMULATOR = [
  process.env.PUBSUB_EMULATOR_BIN,
  '/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator',
  '/usr/share/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator',
  '/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator',
].find((candidate): candidate is string => Boolean(candidate && existsSync(candidate)));

export interface StackPorts {
  auth: number;
  firestore: number;
  hub: number;
  logging: number;
  pubsub: number;
}

/** `npm run dev` uses the usual Firebase ports; `npm test` its own, so both can run at once. */
export const DEV_PORTS: StackPorts = { auth: 9099, firestore: 8080, hub: 4400, logging: 4500, pubsub: 8085 };
export const TEST_PORTS: StackPorts = { auth: 9199, firestore: 8180, hub: 4410, logging: 4510, pubsub: 8185 };

export const PROJECT_ID = process.env.FIREBASE_PROJECT_ID || 'demo-signalbridge';

export function portsFromEnv(defaults: StackPorts): StackPorts {
  const port = (name: string, fallback: number) => Number(process.env[name] || fallback);
  const firestore = port('FIRESTORE_EMULATOR_PORT', defaults.firestore);
  return {
    auth: port('AUTH_EMULATOR_PORT', defaults.auth),
    firestore,
    hub: port('EMULATOR_HUB_PORT', defaults.hub),
    logging: port('EMULATOR_LOGGING_PORT', defaults.logging),
    // Beside Firestore's unless set, so a stack moved to other ports moves whole.
    pubsub: port('PUBSUB_EMULATOR_PORT', firestore + (defaults.pubsub - defaults.firestore)),
  };
}

/** The environment the app, the seed and the tests need to talk to this stack. */
export function stackEnv(ports: StackPorts): Record<string, string> {
  return {
    FIREBASE_PROJECT_ID: PROJECT_ID,
    GCLOUD_PROJECT: PROJECT_ID,
    FIREBASE_AUTH_EMULATOR_HOST: `127.0.0.1:${ports.auth}`,
    FIRESTORE_EMULATOR_HOST: `127.0.0.1:${ports.firestore}`,
    NEXT_PUBLIC_USE_EMULATORS: '1',
    NEXT_PUBLIC_FIREBASE_PROJECT_ID: PROJECT_ID,
    NEXT_PUBLIC_AUTH_EMULATOR_URL: `http://127.0.0.1:${ports.auth}`,
    NEXT_PUBLIC_FIRESTORE_EMULATOR_HOST: `127.0.0.1:${ports.firestore}`,
    // @google-cloud/pubsub talks to the emulator when this is set.
    PUBSUB_EMULATOR_HOST: `127.0.0.1:${ports.pubsub}`,
    PUBSUB_PROJECT_ID: PROJECT_ID,
    // Nothing local should probe for a cloud metadata server.
    METADATA_SERVER_DETECTION: 'none',
  };
}

function javaMajorVersion(): number | null {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error) return null;
  const match = /version "(\d+)(?:\.(\d+))?/.exec(result.stderr);
  if (!match) return null;
  const major = Number(match[1]);
  return major === 1 ? Number(match[2]) : major;
}

interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
}

/** The Pub/Sub emulator: the Google Cloud CLI's launcher, or `gcloud beta emulators pubsub start`. */
function pubsubProcess(ports: StackPorts): ProcessSpec {
  const hostPort = `127.0.0.1:${ports.pubsub}`;
  if (GCLOUD_PUBSUB_EMULATOR)
    return { name: 'pubsub', command: GCLOUD_PUBSUB_EMULATOR, args: ['--host=127.0.0.1', `--port=${ports.pubsub}`] };
  if (spawnSync('gcloud', ['--version'], { encoding: 'utf8' }).status === 0) {
    return { name: 'pubsub', command: 'gcloud', args: ['beta', 'emulators', 'pubsub', 'start', `--host-port=${hostPort}`] };
  }
  throw new Error(
    'No Pub/Sub emulator on this machine: install the Google Cloud CLI and `gcloud components install pubsub-emulator beta`.',
  );
}

/** The emulator processes for this machine: firebase-tools for Auth, the gcloud jar for Firestore when present. */
function stackProcesses(ports: StackPorts, config: string, rules: string): ProcessSpec[] {
  const firebase = (only: string): ProcessSpec => ({
    name: only,
    command: FIREBASE_BIN,
    args: ['emulators:start', '--only', only, '--project', PROJECT_ID, '--config', config],
  });
  const java = javaMajorVersion();
  if (GCLOUD_FIRESTORE_JAR && java) {
    const jarArgs = ['-Duser.language=en', '-cp', GCLOUD_FIRESTORE_JAR, 'com.google.cloud.datastore.emulator.firestore.CloudFirestore'];
    return [
      firebase('auth'),
      {
        name: 'firestore',
        command: 'java',
        args: [...jarArgs, 'start', '--host=127.0.0.1', `--port=${ports.firestore}`, `--rules=${rules}`],
      },
    ];
  }
  // firebase-tools downloads its own Firestore jar on first use (needs internet once) and needs Java 21.
  if (java && java >= 21) return [firebase('auth,firestore')];
  throw new Error(
    [
      'No Firestore emulator can start on this machine:',
      '- the Google Cloud CLI Firestore emulator is not installed (gcloud components install cloud-firestore-emulator), and',
      java ? `- Java ${java} is too old for \`firebase emulators\` (it needs Java 21).` : '- Java is not installed.',
      'Install the Google Cloud CLI emulator (any Java 11+), or Java 21 for firebase-tools.',
    ].join('\n'),
  );
}

function writeFirebaseConfig(ports: StackPorts): string {
  const dir = path.join(ROOT, '.stack', String(ports.auth));
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'firebase.json');
  writeFileSync(
    file,
    JSON.stringify({
      firestore: { rules: path.join(ROOT, 'firestore.rules') },
      emulators: {
        auth: { host: '127.0.0.1', port: ports.auth },
        firestore: { host: '127.0.0.1', port: ports.firestore },
        hub: { host: '127.0.0.1', port: ports.hub },
        logging: { host: '127.0.0.1', port: ports.logging },
        ui: { enabled: false },
        singleProjectMode: true,
      },
    }),
  );
  return file;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return response.status < 500;
  } catch {
    return false;
  }
}

async function waitFor(name: string, url: string, child: ChildProcess, timeoutMs: number, log: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}:\n${log()}`);
    if (await answers(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${name} did not answer at ${url} within ${timeoutMs / 1000}s:\n${log()}`);
}

interface Started {
  child: ChildProcess;
  log: () => string;
}

function startProcess(name: string, command: string, args: string[], verbose: boolean): Started {
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: true, // its own process group, so stopping it stops Java and every grandchild
    env: { ...process.env, NO_UPDATE_NOTIFIER: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (verbose) process.stdout.write(`[${name}] ${chunk}`);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, log: () => output };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export interface RunningStack {
  ports: StackPorts;
  env: Record<string, string>;
  stop: () => Promise<void>;
}

/** Starts the emulators, resolves once each answers; `stop()` ends them and waits until they are gone. */
export async function startStack(ports: StackPorts, { verbose = false } = {}): Promise<RunningStack> {
  if (!existsSync(FIREBASE_BIN)) {
    throw new Error('firebase-tools is not installed: run `npm ci` (its postinstall installs tools/firebase).');
  }
  for (const [name, port] of Object.entries(ports)) {
    if (await answers(`http://127.0.0.1:${port}/`)) {
      throw new Error(`Port ${port} (${name}) is already in use. Stop what runs there or choose other ports (see README).`);
    }
  }
  const rules = path.join(ROOT, 'firestore.rules');
  const specs = [pubsubProcess(ports), ...stackProcesses(ports, writeFirebaseConfig(ports), rules)];
  const children = specs.map(({ name, command, args }) => startProcess(name, command, args, verbose));
  const waitAll = (timeoutMs: number) => {
    const [pubsub, auth] = [children[0]!, children[1]!];
    const firestore = children[2] ?? auth;
    return Promise.all([
      waitFor('Auth emulator', `http://127.0.0.1:${ports.auth}/`, auth.child, timeoutMs, auth.log),
      waitFor('Firestore emulator', `http://127.0.0.1:${ports.firestore}/`, firestore.child, timeoutMs, firestore.log),
      waitFor('Pub/Sub emulator', `http://127.0.0.1:${ports.pubsub}/`, pubsub.child, timeoutMs, pubsub.log),
    ]);
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    const exits = children.map(({ child }) =>
      child.exitCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())),
    );
    children.forEach(({ child }) => killGroup(child, 'SIGTERM'));
    const force = setTimeout(() => children.forEach(({ child }) => killGroup(child, 'SIGKILL')), 5000);
    await Promise.all(exits);
    clearTimeout(force);
  };
  // Never leave an emulator behind, however this process ends.
  process.once('exit', () => children.forEach(({ child }) => killGroup(child, 'SIGKILL')));

  try {
    await waitAll(120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { ports, env: stackEnv(ports), stop };
}

/** Runs `stop` on Ctrl-C or SIGTERM, then exits. */
export function stopOnSignals(stop: () => Promise<void>) {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      void stop().finally(() => process.exit(130));
    });
  }
}
