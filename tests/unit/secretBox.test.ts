/** @jest-environment node */
import { open, seal } from '@/lib/server/secretBox';

beforeAll(() => {
  process.env.CREDENTIALS_ENCRYPTION_KEY = Buffer.alloc(32, 1).toString('base64');
});

test('a sealed credential opens with the same key and document, and hides its plaintext', () => {
  const sealed = seal('{"refreshToken":"1//secret"}', 'org-a/cred-1');
  expect(sealed).not.toContain('secret');
  expect(open(sealed, 'org-a/cred-1')).toBe('{"refreshToken":"1//secret"}');
  // Same plaintext twice → different ciphertexts (fresh IV each time).
  expect(seal('x', 'org-a/cred-1')).not.toBe(seal('x', 'org-a/cred-1'));
});

test('copied into another organization, or altered, it does not open', () => {
  const sealed = seal('token', 'org-a/cred-1');
  expect(() => open(sealed, 'org-b/cred-1')).toThrow();
  const [version, iv, tag, data] = sealed.split('.');
  const flipped = Buffer.from(data!, 'base64url');
  flipped[0] = flipped[0]! ^ 1;
  expect(() => open([version, iv, tag, flipped.toString('base64url')].join('.'), 'org-a/cred-1')).toThrow();
});

test('a missing or short key is a configuration error, not a silent fallback', () => {
  process.env.CREDENTIALS_ENCRYPTION_KEY = '';
  expect(() => seal('x', 'a')).toThrow('CREDENTIALS_ENCRYPTION_KEY is not set');
  process.env.CREDENTIALS_ENCRYPTION_KEY = Buffer.alloc(16).toString('base64');
  expect(() => seal('x', 'a')).toThrow('32 bytes');
});

test('a key rotation: values sealed under the previous key still open while it is configured, new ones use the new key', () => {
  const oldKey = Buffer.alloc(32, 1).toString('base64');
  process.env.CREDENTIALS_ENCRYPTION_KEY = oldKey;
  const sealedBefore = seal('before', 'org-a/cred-1');
  process.env.CREDENTIALS_ENCRYPTION_KEY = Buffer.alloc(32, 2).toString('base64');
  try {
    expect(() => open(sealedBefore, 'org-a/cred-1')).toThrow();
    process.env.CREDENTIALS_ENCRYPTION_KEY_PREVIOUS = oldKey;
    expect(open(sealedBefore, 'org-a/cred-1')).toBe('before');
    const sealedAfter = seal('after', 'org-a/cred-1');
    delete process.env.CREDENTIALS_ENCRYPTION_KEY_PREVIOUS;
    expect(open(sealedAfter, 'org-a/cred-1')).toBe('after');
    // Still bound to its document under either key.
    process.env.CREDENTIALS_ENCRYPTION_KEY_PREVIOUS = oldKey;
    expect(() => open(sealedBefore, 'org-b/cred-1')).toThrow();
  } finally {
    process.env.CREDENTIALS_ENCRYPTION_KEY = oldKey;
    delete process.env.CREDENTIALS_ENCRYPTION_KEY_PREVIOUS;
  }
});
