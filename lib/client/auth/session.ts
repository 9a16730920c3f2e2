import type { User } from 'firebase/auth';

/** The spec's sync URL: POST with a bearer ID token sets the session cookie, DELETE clears it. */
export const SESSION_SYNC_URL = '/api/session';
/** The server takes only ID tokens younger than 5 minutes (docs/PRODUCT.md §8); we refresh a little before. */
const FRESH_TOKEN_MS = 4 * 60 * 1000;

// Syncs run one after another, so a sign-out's DELETE can never be overtaken by an earlier POST.
let queue: Promise<unknown> = Promise.resolve();

/** Gives the server an httpOnly session cookie for this user, or clears it when there is none. */
export function syncSession(user: User | null): Promise<void> {
  const next = queue.then(() => sync(user));
  queue = next.catch(() => undefined);
  return next;
}

async function sync(user: User | null): Promise<void> {
  if (!user) {
    await fetch(SESSION_SYNC_URL, { method: 'DELETE' });
    return;
  }
  const current = await user.getIdTokenResult();
  const fresh = Date.now() - Date.parse(current.issuedAtTime) < FRESH_TOKEN_MS;
  const token = fresh ? current.token : await user.getIdToken(true);
  const response = await fetch(SESSION_SYNC_URL, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error(`Session sync failed (${response.status})`);
}

/**
 * Signs out of the provider and the server session, lets the caller forget everything stored about
 * the user (`forget`: the store is the caller's, not this module's) and goes to `then` (a deliberate
 * sign-out leaves no callback behind).
 */
export function signOutEverywhere(forget: () => void, then: () => Promise<unknown>): Promise<void> {
  return whileAuthFlowRuns(async () => {
    try {
      const [{ signOut }, { clientAuth }] = await Promise.all([import('firebase/auth'), import('@/lib/client/firebase/auth')]);
      await Promise.allSettled([signOut(clientAuth()), syncSession(null)]);
    } finally {
      forget();
      await then();
    }
  });
}

let runningFlows = 0;

/**
 * While a sign-in, registration or sign-out flow runs, neither the auth listener nor the route
 * guard acts on the half-changed state: the flow decides where it ends (registration, for one,
 * ends signed out on /login).
 */
export async function whileAuthFlowRuns<T>(flow: () => Promise<T>): Promise<T> {
  runningFlows += 1;
  try {
    return await flow();
  } finally {
    runningFlows -= 1;
  }
}

export const isAuthFlowRunning = () => runningFlows > 0;

/** Makes sure the server has a session for the signed-in user (a page reload may find none). */
export async function ensureServerSession(): Promise<void> {
  const { clientAuth } = await import('@/lib/client/firebase/auth');
  const auth = clientAuth();
  await auth.authStateReady();
  if (auth.currentUser) await syncSession(auth.currentUser);
}
