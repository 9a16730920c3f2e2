/** @jest-environment node */
import { intercomUserHash } from '@/lib/server/intercom';

test('the hash is HMAC-SHA256, hex (RFC 4231 test case 2)', () => {
  expect(intercomUserHash('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
});
