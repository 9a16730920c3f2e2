import { sendEmailVerification, type User } from 'firebase/auth';
import { clientAuth } from '@/lib/client/firebase/auth';

/** Where the verification link continues once clicked: the invitations waiting for the user. */
const continueSettings = () => ({ url: `${window.location.origin}/organizations` });

/** Emails the link that proves the address is the user's (invitations sent to it need that proof). */
export function sendVerificationEmail(user: User): Promise<void> {
  return sendEmailVerification(user, continueSettings());
}

async function currentUser(): Promise<User | null> {
  const auth = clientAuth();
  await auth.authStateReady();
  return auth.currentUser;
}

/** Whether the signed-in user's email is verified, as the provider last told this browser (Google's always are). */
export async function isEmailVerified(): Promise<boolean> {
  return (await currentUser())?.emailVerified ?? false;
}

/** Sends the signed-in user a new verification link. */
export async function resendVerificationEmail(): Promise<void> {
  const user = await currentUser();
  if (user) await sendVerificationEmail(user);
}

/**
 * Asks the provider again, after the user clicked the link elsewhere; once verified, the ID token is
 * renewed so the server sees the new `email_verified` claim at the next call.
 */
export async function recheckEmailVerified(): Promise<boolean> {
  const user = await currentUser();
  if (!user) return false;
  await user.reload();
  if (user.emailVerified) await user.getIdToken(true);
  return user.emailVerified;
}
