import { AUTH_MESSAGES, authErrorMessage } from '@/lib/client/auth/errors';

test.each([
  ['auth/weak-password', 'Password should be at least 6 characters long.'],
  ['auth/email-already-in-use', 'This email is already in use. Please try a different email or log in.'],
  ['auth/invalid-credential', 'The email or password is incorrect.'],
  ['auth/popup-blocked', expect.stringContaining('popup was blocked')],
])('%s has a message a person understands', (code, message) => {
  expect(authErrorMessage({ code })).toEqual(message);
});

test('logging in with an unknown email reads like a wrong password: no way to learn who has an account', () => {
  expect(authErrorMessage({ code: 'auth/user-not-found' })).toBe(authErrorMessage({ code: 'auth/wrong-password' }));
});

test('a code with no message reads as its words', () => {
  expect(authErrorMessage({ code: 'auth/quota-exceeded-for-project' })).toBe('quota exceeded for project');
});

test('an error without a code is unexpected', () => {
  expect(authErrorMessage(new Error('boom'))).toBe(AUTH_MESSAGES.unexpected);
  expect(authErrorMessage(undefined)).toBe('An unexpected error occurred');
});
