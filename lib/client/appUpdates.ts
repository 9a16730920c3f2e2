/** docs/PRODUCT.md §8: a page reload for a failed chunk may happen at most once per 10 seconds. */
export const RELOAD_GUARD_MS = 10_000;
/** docs/PRODUCT.md §8: the build manifest is prefetched one second after load. */
export const MANIFEST_PREFETCH_DELAY_MS = 1_000;
/** How often an open tab asks whether a new version was deployed (also on focus). */
export const BUILD_ID_POLL_MS = 5 * 60_000;
export const CHUNK_RELOAD_KEY = 'signalbridge:chunk-reload-at';

/** Whether an error means a code chunk of this build is gone (a new deployment replaced it). */
export function isChunkLoadError(reason: unknown): boolean {
  if (!reason || typeof reason !== 'object') return false;
  const { name, message } = reason as { name?: unknown; message?: unknown };
  return (
    name === 'ChunkLoadError' ||
    (typeof message === 'string' &&
      /Loading (CSS )?chunk|Failed to load chunk|dynamically imported module|Importing a module script failed/i.test(message))
  );
}

/**
 * Reloads the page unless it already did so less than 10 seconds ago, so a chunk that stays
 * missing can never loop. Returns whether it reloaded.
 */
export function reloadOnce(storage: Pick<Storage, 'getItem' | 'setItem'>, now: number, reload: () => void): boolean {
  const last = Number(storage.getItem(CHUNK_RELOAD_KEY) ?? 0);
  if (now - last < RELOAD_GUARD_MS) return false;
  storage.setItem(CHUNK_RELOAD_KEY, String(now));
  reload();
  return true;
}
