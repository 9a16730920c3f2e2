/** @jest-environment node */
import { toDataManagerEvent } from '@/lib/server/connectors/google_ads/delivery';
import { googleAdsError } from '@/lib/server/connectors/google_ads/errors';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { dataManagerProtos, readProtoJson } from '@/sandbox/google_ads/dataManager';

const HASH = 'a'.repeat(64);
const NOW = new Date('2026-03-01T12:00:00Z');
const nowSeconds = NOW.getTime() / 1000;

const conversion = (overrides: Partial<ConversionEvent> = {}): ConversionEvent => ({
  id: 'order-1',
  name: 'Purchase',
  time: nowSeconds - 60,
  value: 12.5,
  currency: 'EUR',
  user: { email: HASH, phone: HASH.replace(/a/g, 'c'), phoneE164: HASH.replace(/a/g, 'b'), firstName: HASH, lastName: HASH },
  clickIds: { gclid: 'gclid-1', wbraid: 'wbraid-1' },
  context: { actionSource: 'website', ip: '203.0.113.7', userAgent: 'Mozilla/5.0' },
  ...overrides,
});

describe('toDataManagerEvent', () => {
  test('maps a conversion onto Data Manager’s Event', () => {
    expect(toDataManagerEvent(conversion(), NOW)).toEqual({
      transactionId: 'order-1',
      eventTimestamp: '2026-03-01T11:59:00.000Z',
      eventSource: 'WEB',
      adIdentifiers: { gclid: 'gclid-1' },
      userData: { userIdentifiers: [{ emailAddress: HASH }, { phoneNumber: HASH.replace(/a/g, 'b') }] },
      conversionValue: 12.5,
      currency: 'EUR',
      eventDeviceInfo: { userAgent: 'Mozilla/5.0', ipAddress: '203.0.113.7' },
    });
  });

  test('a payment is OTHER, without value, click id or device; a clock ahead is sent as now', () => {
    const event = toDataManagerEvent(
      conversion({
        time: nowSeconds + 120,
        value: null,
        currency: null,
        clickIds: { gbraid: 'g1' },
        user: { email: HASH },
        context: { actionSource: 'system_generated' },
      }),
      NOW,
    );
    expect(event).toEqual({
      transactionId: 'order-1',
      eventTimestamp: '2026-03-01T12:00:00.000Z',
      eventSource: 'OTHER',
      adIdentifiers: { gbraid: 'g1' },
      userData: { userIdentifiers: [{ emailAddress: HASH }] },
    });
  });

  test('every field it sends is one of the official proto (the sandbox’s reader agrees)', () => {
    const type = dataManagerProtos().lookupType('google.ads.datamanager.v1.Event');
    expect(readProtoJson(type, toDataManagerEvent(conversion(), NOW)).violations).toEqual([]);
    // …and the reader is no rubber stamp.
    expect(readProtoJson(type, { ...toDataManagerEvent(conversion(), NOW), eventTime: 1 }).violations).toHaveLength(1);
  });
});

describe("Google's error table: Data Manager's refusals", () => {
  const rpc = (code: number, status: string, details: unknown[] = [], message = 'Something.') => ({
    error: { code, status, message, details },
  });
  const errorInfo = (reason: string) => ({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason });
  const badRequest = (...fields: string[]) => ({
    '@type': 'type.googleapis.com/google.rpc.BadRequest',
    fieldViolations: fields.map((field) => ({ field, description: 'Bad.', reason: 'INVALID_FORMAT' })),
  });

  test.each([
    ['401 UNAUTHENTICATED', 401, rpc(401, 'UNAUTHENTICATED'), 'needs_reauth'],
    [
      '403 without the datamanager scope',
      403,
      rpc(403, 'PERMISSION_DENIED', [errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT')]),
      'needs_reauth',
    ],
    ['403 an account the login does not operate', 403, rpc(403, 'PERMISSION_DENIED', [errorInfo('PERMISSION_DENIED')]), 'forbidden'],
    ['429 RESOURCE_EXHAUSTED', 429, rpc(429, 'RESOURCE_EXHAUSTED'), 'rate_limited'],
    ['503 UNAVAILABLE', 503, rpc(503, 'UNAVAILABLE'), 'retryable'],
    ['400 naming an event', 400, rpc(400, 'INVALID_ARGUMENT', [badRequest('events[3].event_timestamp')]), 'invalid'],
    [
      '400 naming only the destination',
      400,
      rpc(400, 'INVALID_ARGUMENT', [badRequest('destinations[0].product_destination_id')]),
      'forbidden',
    ],
    [
      '400 naming the destination and an event',
      400,
      rpc(400, 'INVALID_ARGUMENT', [badRequest('destinations[0].product_destination_id', 'events[0].currency')]),
      'invalid',
    ],
    ['400 naming nothing', 400, rpc(400, 'INVALID_ARGUMENT'), 'invalid'],
  ])('%s', (_, status, body, code) => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(googleAdsError(status, body).code).toBe(code);
    logged.mockRestore();
  });

  test('an invalid request carries Google’s message and the fields it names', () => {
    const error = googleAdsError(
      400,
      rpc(
        400,
        'INVALID_ARGUMENT',
        [badRequest(...Array.from({ length: 7 }, (_, i) => `events[${i}].currency`))],
        'There was a problem with the request.',
      ),
    );
    expect(error.message).toContain('There was a problem with the request. events[0].currency: Bad. (INVALID_FORMAT)');
    expect(error.message).toContain('… and 2 more');
  });
});
