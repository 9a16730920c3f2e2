/** @jest-environment node */
import { PlatformError } from '@/lib/server/connectors/errors';
import { DOMAIN_ERROR_CODES, DomainError, forbidden, invalidFields, notFound } from '@/lib/server/errors';
import { STATUS_OF, toApiError } from '@/lib/server/http/errors';

describe('domain errors become HTTP answers in one place', () => {
  test.each([
    [new DomainError('needs_reauth', 'Reconnect.'), 409, 'needs_reauth'],
    [new DomainError('in_use', 'Still used.'), 409, 'in_use'],
    [notFound('Source not found.'), 404, 'not_found'],
    [new DomainError('plan_limit', 'Upgrade.'), 403, 'plan_limit'],
    [forbidden(), 403, 'forbidden'],
    [new DomainError('conflict', 'Owner needed.', { reason: 'last_owner' }), 409, 'last_owner'],
    [new DomainError('invalid', 'Expired link.', { reason: 'invalid_state' }), 400, 'invalid_state'],
    [new DomainError('retryable', 'Try later.', { reason: 'platform_error' }), 502, 'platform_error'],
  ])('%s → %i %s', (error, status, code) => {
    const answer = toApiError(error);
    expect(answer.status).toBe(status);
    expect(answer.code).toBe(code);
    expect(answer.message).toBe(error.message);
  });

  test('a rate limit answers 429 with Retry-After', () => {
    const answer = toApiError(new DomainError('rate_limited', 'Slow down.', { retryAfter: 42 }));
    expect(answer.status).toBe(429);
    expect(answer.code).toBe('rate_limited');
    expect(answer.headers).toEqual({ 'Retry-After': '42' });
  });

  test('field errors pass through', () => {
    const answer = toApiError(invalidFields({ accountIds: ['Pick only accounts this login can reach'] }));
    expect(answer.status).toBe(400);
    expect(answer.code).toBe('invalid_request');
    expect(answer.fieldErrors).toEqual({ accountIds: ['Pick only accounts this login can reach'] });
  });

  test('every code has a status', () => {
    for (const code of DOMAIN_ERROR_CODES) expect(STATUS_OF[code]).toBeGreaterThanOrEqual(400);
  });

  test('a platform failure is a domain error a worker can classify', () => {
    const error = new PlatformError('meta_ads', 'rate_limited', 'Meta is rate limiting this account.');
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe('rate_limited');
    expect(error.platform).toBe('meta_ads');
  });
});
