/**
 * Deadlines, not sleeps: a test waits for what a worker or a fake will do, as long as it takes on a busy
 * machine and no longer than its limit, and says what it was waiting for when the limit passes.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until `condition` holds, looking every `everyMs`. After `timeoutMs` it fails naming `what` (a
 * function is asked at that moment, to say what was seen).
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string | (() => string),
  everyMs = 250,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await pause(everyMs);
  }
}

/** Reads `probe` until `done` takes its value, and answers that value; after `timeoutMs` it fails with the last one. */
export async function untilValue<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 400)}`);
    await pause(250);
  }
}

/**
 * Rate-limit windows are aligned to the clock: a test that must stay inside one window first waits until
 * the current one (of `windowSeconds`) has at least `seconds` left.
 */
export async function windowWithTimeLeft(windowSeconds: number, seconds = 20): Promise<void> {
  const left = () => windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000));
  await until(() => left() >= seconds * 1000, (seconds + 5) * 1000, `a ${windowSeconds} s window with ${seconds} s left`);
}
