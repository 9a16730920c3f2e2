import {
  createUserWithEmailAndPassword,
  GoogleAuthProvider,
  sendPasswordResetEmail,
  signInWithEmailAndPassword,
  signInWithPopup,
  signOut,
  updateProfile,
  type User,
} from 'firebase/auth';
import { identifySelf } from '@/lib/client/analytics';
import { apiRequest } from '@/lib/client/apiClient';
import { sendVerificationEmail } from '@/lib/client/auth/emailVerification';
import { AUTH_MESSAGES } from '@/lib/client/auth/errors';
import { syncSession, whileAuthFlowRuns } from '@/lib/client/auth/session';
import { clientAuth, toProviderUser } from '@/lib/client/firebase/auth';
import type { ProviderUser } from '@/lib/client/firebase/auth';

/** An error whose message is already what the user should read. */
export class AuthFlowError extends Error {
  name = 'AuthFlowError';
}

/** docs/PRODUCT.md §5: called after login, registration and federated sign-in. */
async function getOrSaveUser(user: User, fullName?: string) {
  await apiRequest('/api/getOrSaveUser', {
    method: 'POST',
    body: { email: user.email, fullName: fullName ?? user.displayName ?? '', uid: user.uid, photoURL: user.photoURL ?? '' },
  });
}

async function finishSignIn(user: User): Promise<ProviderUser> {
  await getOrSaveUser(user);
  await syncSession(user);
  identifySelf(user);
  return toProviderUser(user);
}

export function signInWithEmail(email: string, password: string): Promise<ProviderUser> {
  return whileAuthFlowRuns(async () => {
    const { user } = await signInWithEmailAndPassword(clientAuth(), email, password);
    return finishSignIn(user);
  });
}

export function signInWithGoogle(): Promise<ProviderUser> {
  return whileAuthFlowRuns(async () => {
    const { user } = await signInWithPopup(clientAuth(), new GoogleAuthProvider());
    return finishSignIn(user);
  });
}

/**
 * Registers, creates the database user if none exists and emails the verification link, and leaves
 * the user signed in (the route guard then sends them on: the pending invitation, the callback, or
 * /organizations). If the database user cannot be made, it signs out again and says so.
 */
export function registerWithEmail(fullName: string, email: string, password: string): Promise<ProviderUser> {
  return whileAuthFlowRuns(async () => {
    const auth = clientAuth();
    const { user } = await createUserWithEmailAndPassword(auth, email, password);
    try {
      if (fullName) await updateProfile(user, { displayName: fullName });
      await getOrSaveUser(user, fullName);
      // Not fatal: the account works without it, and /onboarding offers to send the link again.
      await sendVerificationEmail(user).catch((error) => console.warn('Could not send the verification email', error));
      await syncSession(user);
    } catch {
      await signOut(auth);
      throw new AuthFlowError(AUTH_MESSAGES.databaseUserFailed);
    }
    identifySelf(user);
    return toProviderUser(user);
  });
}

/** What the provider says when the address has no usable account; the form must not tell that apart. */
const ACCOUNT_REVEALING_CODES = new Set(['auth/user-not-found', 'auth/user-disabled']);

/**
 * Sends the reset email (only a real account gets one); its link continues to /login on this site.
 * Succeeds alike for every address, so the form does not reveal which emails have accounts.
 */
export async function requestPasswordReset(email: string): Promise<void> {
  try {
    await sendPasswordResetEmail(clientAuth(), email, { url: `${window.location.origin}/login` });
  } catch (error) {
    const code = typeof error === 'object' && error && 'code' in error ? String(error.code) : '';
    if (!ACCOUNT_REVEALING_CODES.has(code)) throw error;
  }
}
