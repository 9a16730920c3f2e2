/**
 * Starts the data plane's worker (`workers/index.ts`: conversions and connection syncs) as a child process with the given
 * environment, for `npm run dev`, the e2e tests and the bench. `stop()` ends it with SIGTERM (it sends
 * what it holds, then exits) and waits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '@/scripts/lib/stack';

export interface RunningWorker {
  child: ChildProcess;
  stop: () => Promise<void>;
}

export function startWorker(env: Record<string, string | undefined>, { quiet = false } = {}): RunningWorker {
  // One process (node with tsx's loader, not tsx's CLI, which runs a second one): a SIGKILL kills the worker itself.
  const child = spawn(
    process.execPath,
    [
      // WORKER_PROF_DIR: a CPU profile of each worker the benches start (node refuses --cpu-prof in NODE_OPTIONS).
      ...(process.env.WORKER_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WORKER_PROF_DIR}`] : []),
      '--import',
      'tsx',
      path.join(ROOT, 'workers/index.ts'),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'],
    },
  );
  process.once('exit', () => child.kill('SIGKILL'));
  return { child, stop: () => stopChild(child) };
}

/** SIGTERM (a worker or server drains what it holds, then exits), SIGKILL after 10 s; resolves once it has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
}
