import type { NextApiRequest } from 'next';
import type { DecodedIdToken } from 'firebase-admin/auth';
import { adminAuth } from '@/lib/server/firebaseAdmin';
import { assertSameSiteRequest } from '@/lib/server/http/csrf';
import { unauthorized } from '@/lib/server/http/errors';

export const SESSION_COOKIE = '__session';

export interface Caller {
  uid: string;
  email: string | undefined;
  /** Whether the provider has seen the person prove the email is theirs (a clicked verification link, Google). */
  emailVerified: boolean;
}

/**
 * The caller from a Firebase ID token (`Authorization: Bearer`) or the session cookie.
 * ID tokens live an hour and are checked offline; session cookies live long, so they are
 * also checked against revocation. The cookie is ambient (any site's request carries it), so a
 * state change made with it must come from our own pages (assertSameSiteRequest → 403).
 */
export async function authenticate(req: NextApiRequest): Promise<Caller> {
  const header = req.headers.authorization;
  const cookie = req.cookies[SESSION_COOKIE];
  const bearer = header?.startsWith('Bearer ');
  if (!bearer && !cookie) throw unauthorized();
  if (!bearer) assertSameSiteRequest(req);
  let decoded: DecodedIdToken;
  try {
    decoded = bearer
      ? await adminAuth().verifyIdToken(header!.slice('Bearer '.length).trim())
      : await adminAuth().verifySessionCookie(cookie!, true);
  } catch {
    throw unauthorized();
  }
  return { uid: decoded.uid, email: decoded.email, emailVerified: decoded.email_verified === true };
}
