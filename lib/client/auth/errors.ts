/** docs/PRODUCT.md §7: what a user reads when the authentication provider refuses. */
export const AUTH_MESSAGES = {
  weakPassword: 'Password should be at least 6 characters long.',
  emailInUse: 'This email is already in use. Please try a different email or log in.',
  databaseUserFailed: 'Failed to create user in the database.',
  unexpected: 'An unexpected error occurred',
  loginFailed: 'Login failed',
} as const;

const PROVIDER_MESSAGES: Record<string, string> = {
  'weak-password': AUTH_MESSAGES.weakPassword,
  'email-already-in-use': AUTH_MESSAGES.emailInUse,
  'invalid-email': 'That email address does not look right. Please check it and try again.',
  'invalid-credential': 'The email or password is incorrect.',
  'invalid-login-credentials': 'The email or password is incorrect.',
  'wrong-password': 'The email or password is incorrect.',
  // The same words as a wrong password: a login form must not tell which emails have accounts.
  'user-not-found': 'The email or password is incorrect.',
  'user-disabled': 'This account has been disabled. Please contact support.',
  'missing-password': 'Please enter your password.',
  'missing-email': 'Please enter your email address.',
  'too-many-requests': 'Too many attempts. Please wait a moment and try again.',
  'operation-not-allowed': 'This sign-in method is not enabled. Please contact support.',
  'popup-blocked': 'The sign-in popup was blocked by your browser. Please allow popups for this site and try again.',
  'popup-closed-by-user': 'The sign-in popup was closed before finishing. Please try again.',
  'cancelled-popup-request': 'Another sign-in popup is already open.',
  'network-request-failed': 'We could not reach the sign-in service. Please check your connection and try again.',
  'unauthorized-domain': 'Sign-in is not allowed from this domain.',
  'web-storage-unsupported': 'Your browser blocks the storage sign-in needs. Please enable cookies and site data.',
  'account-exists-with-different-credential': 'An account already exists with this email using a different sign-in method.',
  'expired-action-code': 'This link has expired. Please request a new one.',
  'invalid-action-code': 'This link is invalid or has already been used. Please request a new one.',
};

/**
 * The message for an error from the provider; an unknown code reads as its words
 * ("quota-exceeded" → "quota exceeded"); an error without a code gets the fallback.
 */
export function authErrorMessage(error: unknown, fallback: string = AUTH_MESSAGES.unexpected): string {
  if (error instanceof Error && error.name === 'AuthFlowError') return error.message;
  const code = typeof error === 'object' && error && 'code' in error ? String(error.code) : '';
  if (!code) return fallback;
  const bare = code.replace(/^auth\//, '');
  return PROVIDER_MESSAGES[bare] ?? bare.replace(/-/g, ' ');
}
