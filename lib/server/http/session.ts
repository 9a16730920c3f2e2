import type { NextApiRequest, NextApiResponse } from 'next';
import { adminAuth } from '@/lib/server/firebaseAdmin';
import { SESSION_COOKIE } from '@/lib/server/http/authenticate';
import { unauthorized } from '@/lib/server/http/errors';

/** How long a session cookie lives (Firebase allows 5 minutes to 2 weeks). */
export const SESSION_MAX_AGE_SECONDS = 5 * 24 * 60 * 60;
/** docs/PRODUCT.md §8: an ID token older than this is not exchanged for a session. */
export const SYNC_TOKEN_MAX_AGE_SECONDS = 5 * 60;

function isLocalhost(req: NextApiRequest): boolean {
  const host = (req.headers.host ?? '').split(':')[0];
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

function sessionCookie(req: NextApiRequest, value: string, maxAge: number): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(isLocalhost(req) ? [] : ['Secure']),
  ].join('; ');
}

/** Exchanges a fresh, unrevoked ID token for an httpOnly session cookie. */
export async function startSession(req: NextApiRequest, res: NextApiResponse, idToken: string): Promise<void> {
  let issuedAt: number;
  try {
    ({ iat: issuedAt } = await adminAuth().verifyIdToken(idToken, true));
  } catch {
    throw unauthorized();
  }
  // A stolen old token must not mint a long-lived session.
  if (Date.now() / 1000 - issuedAt > SYNC_TOKEN_MAX_AGE_SECONDS) throw unauthorized();
  const cookie = await adminAuth().createSessionCookie(idToken, { expiresIn: SESSION_MAX_AGE_SECONDS * 1000 });
  res.setHeader('Set-Cookie', sessionCookie(req, cookie, SESSION_MAX_AGE_SECONDS));
}

export function endSession(req: NextApiRequest, res: NextApiResponse): void {
  res.setHeader('Set-Cookie', sessionCookie(req, '', 0));
}
