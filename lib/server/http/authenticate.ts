import type { NextApiRequest } from 'next';
import type { DecodedIdToken } from 'firebase-admin/auth';
import { adminAuth } from '@/lib/server/firebaseAdmin';
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
 * also checked against revocation.
 */
export async function authenticate(req: NextApiRequest): Promise<Caller> {
  const header = req.headers.authorization;
  let decoded: DecodedIdToken;
  try {
    if (header?.startsWith('Bearer ')) {
      decoded = await adminAuth().verifyIdToken(header.slice('Bearer '.length).trim());
    } else if (req.cookies[SESSION_COOKIE]) {
      decoded = await adminAuth().verifySessionCookie(req.cookies[SESSION_COOKIE], true);
    } else {
      throw unauthorized();
    }
  } catch {
    throw unauthorized();
  }
  return { uid: decoded.uid, email: decoded.email, emailVerified: decoded.email_verified === true };
}
