import { errorFields, log } from '@/lib/server/log';

/**
 * Runs `round` every `intervalMs` (the next round starts that long after one ends) until stopped;
 * `stop()` lets a round in progress finish. A failed round is logged and the next one runs as usual.
 */
export function startPoller(label: string, intervalMs: number, round: () => Promise<unknown>): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    timer = null;
    running = round()
      .catch((error) => log.error({ component: label, ...errorFields(error) }, 'poll round failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** Runs `work` over the items, `concurrency` at a time. */
export async function inLanes<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, lane));
}
