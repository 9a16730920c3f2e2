import { startWorker, type RunningWorker } from '@/scripts/lib/worker';

/**
 * Worker processes for the worker tests: they inherit process.env (the emulators, and the sandbox's
 * URLs a test file puts there) and stop after each test. WORKER_LOGS=1 shows what they print.
 */

/** `worker(env)` starts a worker process with `defaults` and `env` over process.env; each test's workers are stopped after it. */
export function workerProcesses(defaults: Record<string, string>): (env?: Record<string, string>) => RunningWorker {
  const running: RunningWorker[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((worker) => worker.stop()));
  });
  return (env = {}) => {
    const started = startWorker({ ...process.env, ...defaults, ...env }, { quiet: !process.env.WORKER_LOGS });
    running.push(started);
    return started;
  };
}
