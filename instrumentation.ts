/**
 * Runs once when a server starts: a misconfigured deployment refuses to start with the names of the
 * variables at fault, instead of failing at a user's first sign-in, payment or consent.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.NEXT_PHASE === 'phase-production-build') return;
  const { assertServerConfiguration } = await import('@/lib/server/env');
  assertServerConfiguration();
}
