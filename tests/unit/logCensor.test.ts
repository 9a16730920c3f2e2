/** @jest-environment node */
import { censorPersonal } from '@/lib/server/log';

describe('what the log never shows', () => {
  test('a personal field at the top of an entry or one level down is censored; the rest is kept as it came', () => {
    const entry = {
      component: 'ingest',
      email: 'jane@example.com',
      user: { phone: '+16505551212', id: 'u1' },
      eventIds: ['email', 'phone'],
      count: 2,
    };
    expect(censorPersonal(entry)).toEqual({
      component: 'ingest',
      email: '[personal]',
      user: { phone: '[personal]', id: 'u1' },
      eventIds: ['email', 'phone'],
      count: 2,
    });
  });

  test("the caller's objects are not changed, and an entry without personal fields is the same object", () => {
    const user = { name: 'Jane', id: 'u1' };
    const entry = { user };
    censorPersonal(entry);
    expect(entry.user).toBe(user);
    expect(user.name).toBe('Jane');
    const clean = { component: 'ingest', labels: { org: 'o1' } };
    expect(censorPersonal(clean)).toBe(clean);
  });

  test('an error keeps its message and stack; a personal field on it is censored', () => {
    const error = Object.assign(new Error('refused'), { email: 'jane@example.com' });
    const { err } = censorPersonal({ err: error }) as { err: Error & { email: string } };
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe('refused');
    expect(err.stack).toBe(error.stack);
    expect(err.email).toBe('[personal]');
    expect(error.email).toBe('jane@example.com');
  });
});
