import { sendPasswordResetEmail } from 'firebase/auth';
import { requestPasswordReset } from '@/lib/client/auth/flows';

jest.mock('firebase/auth', () => ({ sendPasswordResetEmail: jest.fn() }));
jest.mock('@/lib/client/firebase/auth', () => ({ clientAuth: () => ({}) }));

const send = jest.mocked(sendPasswordResetEmail);
const providerError = (code: string) => Object.assign(new Error(code), { code });

test('an address without an account gets the same answer as one with an account', async () => {
  send.mockResolvedValueOnce(undefined);
  await expect(requestPasswordReset('someone@example.test')).resolves.toBeUndefined();
  for (const code of ['auth/user-not-found', 'auth/user-disabled']) {
    send.mockRejectedValueOnce(providerError(code));
    await expect(requestPasswordReset('nobody@example.test')).resolves.toBeUndefined();
  }
});

test('the reset link continues to /login; other failures are still shown', async () => {
  send.mockResolvedValueOnce(undefined);
  await requestPasswordReset('someone@example.test');
  expect(send).toHaveBeenLastCalledWith(expect.anything(), 'someone@example.test', { url: 'http://localhost/login' });
  send.mockRejectedValueOnce(providerError('auth/invalid-email'));
  await expect(requestPasswordReset('not-an-email')).rejects.toMatchObject({ code: 'auth/invalid-email' });
});
