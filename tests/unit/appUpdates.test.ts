import { CHUNK_RELOAD_KEY, isChunkLoadError, reloadOnce, RELOAD_GUARD_MS } from '@/lib/client/appUpdates';

function memoryStorage() {
  const values = new Map<string, string>();
  return { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value) };
}

test('repeated chunk failures reload once per 10 seconds, never in a loop', () => {
  const storage = memoryStorage();
  const reload = jest.fn();
  const start = 1_000_000;
  // a chunk that stays missing fails every 100 ms for 25 seconds
  for (let t = start; t < start + 25_000; t += 100) reloadOnce(storage, t, reload);
  expect(reload).toHaveBeenCalledTimes(3); // at 0 s, 10 s and 20 s
  expect(storage.getItem(CHUNK_RELOAD_KEY)).toBe(String(start + 2 * RELOAD_GUARD_MS));
});

test('the first failure reloads at once', () => {
  const reload = jest.fn();
  expect(reloadOnce(memoryStorage(), Date.now(), reload)).toBe(true);
  expect(reload).toHaveBeenCalledTimes(1);
});

test.each([
  [{ name: 'ChunkLoadError', message: 'x' }, true],
  [new Error('Loading chunk 42 failed.'), true],
  [new TypeError('Failed to fetch dynamically imported module: /_next/static/chunks/a.js'), true],
  [new Error('Cannot read properties of undefined'), false],
  ['Loading chunk', false],
  [null, false],
])('isChunkLoadError(%p) → %p', (reason, expected) => {
  expect(isChunkLoadError(reason)).toBe(expected);
});
