import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/** Starts the worker as `npm run worker` does and collects what it prints until it exits. */
function startWorker(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'workers/index.ts')], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const force = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(force);
      resolve({ code, output });
    });
  });
}

test('a worker started with a malformed number exits at once, naming every variable at fault', async () => {
  const { code, output } = await startWorker({ WORKER_MAX_EVENTS: 'abc', SYNC_CONCURRENCY: '-2' });
  expect(code).toBe(1);
  const entry = JSON.parse(output.trim().split('\n').at(-1)!) as { severity: string; message: string; err: { message: string } };
  expect(entry.severity).toBe('CRITICAL');
  expect(entry.err.message).toContain('WORKER_MAX_EVENTS must be a positive whole number');
  expect(entry.err.message).toContain('SYNC_CONCURRENCY must be a positive whole number');
  // It stopped before it touched the queue: nothing says it started delivering.
  expect(output).not.toContain('delivering conversions');
}, 90_000);
