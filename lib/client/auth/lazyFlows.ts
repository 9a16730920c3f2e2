/**
 * The sign-in flows load after a sign-in page is shown, not with it: they bring the Firebase Auth
 * SDK, the largest part of those pages. The forms start loading them when they mount, so they are
 * in hand by the time someone presses a button.
 */
type Flows = typeof import('@/lib/client/auth/flows');

let loaded: Flows | null = null;
let loading: Promise<Flows> | null = null;

export function loadAuthFlows(): Promise<Flows> {
  loading ??= import('@/lib/client/auth/flows').then((flows) => (loaded = flows));
  // A failed chunk load may pass on the next try (the app-updates guard reloads a stale build).
  loading.catch(() => (loading = null));
  return loading;
}

/**
 * The flows when already loaded. Google's popup must open within the click's user activation:
 * calling the flow at once, without an await before it, keeps browsers from blocking it.
 */
export const loadedAuthFlows = (): Flows | null => loaded;
