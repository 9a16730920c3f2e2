/**
 * @jest-environment node
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { MatchKey } from '@/lib/shared/conversions/matchKeys';
import { countMatchKeys, qualityAdvice } from '@/lib/shared/conversions/quality';
import { readRequestStatus } from '@/lib/server/connectors/google_ads/diagnostics';
import { readDatasetQuality } from '@/lib/server/connectors/meta_ads/quality';

// Counting with a local stand-in for matchKeysOf (the per-platform rules are issue 28's other part),
// the advice in words, and the two platform readers against a tiny server speaking the documented shapes.

const event = (id: string, user: ConversionEvent['user'], clickIds: ConversionEvent['clickIds'] = {}): ConversionEvent => ({
  id,
  name: 'Lead',
  time: 1_700_000_000,
  value: null,
  currency: null,
  user,
  clickIds,
  context: { actionSource: 'website' },
});

/** A fake of matchKeysOf: email and phone as they are, a click id for the platform's own. */
function fakeKeysOf(item: ConversionEvent, platform: string): MatchKey[] {
  const keys: MatchKey[] = [];
  if (item.user.email) keys.push('email', 'email');
  if (item.user.phone) keys.push('phone');
  if (platform === 'meta_ads' && item.clickIds.fbc) keys.push('clickId');
  if (platform === 'google_ads' && item.clickIds.gclid) keys.push('clickId');
  return keys;
}

const H = 'a'.repeat(64);
const batch = [
  event('1', { email: H, phone: H }, { fbc: 'fb.1.1.x', gclid: 'g' }),
  event('2', { email: H }, { gclid: 'g' }),
  event('3', { email: H }),
  event('4', { phone: H }, { fbc: 'fb.1.1.y' }),
];

test('counts each key once per event, by the platform the event goes to', () => {
  expect(countMatchKeys(batch, 'meta_ads', fakeKeysOf)).toEqual({
    events: 4,
    keys: { email: 3, phone: 2, address: 0, clickId: 2, ipUserAgent: 0, consent: 0 },
  });
  expect(countMatchKeys(batch, 'google_ads', fakeKeysOf).keys.clickId).toBe(2);
  expect(countMatchKeys([], 'meta_ads', fakeKeysOf).events).toBe(0);
});

describe('what would raise it', () => {
  const counts = countMatchKeys(batch, 'meta_ads', fakeKeysOf);
  const all = ['email', 'phone', 'name', 'externalId', 'clickIds', 'context'] as const;

  test("worst first, in words, for the platform's keys only (Meta carries no consent)", () => {
    expect(qualityAdvice(counts, 'meta_ads', 'app', all).map((advice) => advice.text)).toEqual([
      "100 % of events have no full name and address; add the form's first name, last name, postal code and country fields (or set the app's default country).",
      '100 % of events have no IP address and user agent; post through the snippet, which sends the visitor’s address and browser, or send ip and userAgent.',
      "50 % of events have no phone; add the form's phone field (or name it in the app's custom fields).",
      '50 % of events have no click id; keep the snippet on every landing page, so the gclid, fbclid, msclkid, li_fat_id or ttclid of the ad click is remembered.',
      "25 % of events have no email; add the form's email field (or name it in the app's custom fields).",
    ]);
  });

  test('a key the mapping leaves out is said so; server sources are told what to send; nothing said without events', () => {
    const advice = qualityAdvice(counts, 'microsoft_ads', 'payments', ['email']);
    expect(advice.map((item) => item.key)).toEqual(['phone', 'clickId', 'email']);
    expect(advice[0]!.text).toBe('50 % of events have no phone; this conversion does not send it: tick “Phone” in its mapping.');
    expect(advice[2]!.text).toBe('25 % of events have no email; collect the email at checkout (Stripe keeps it on the charge).');
    expect(qualityAdvice(counts, 'meta_ads', 'bigquery', all)[0]!.text).toBe(
      '100 % of events have no full name and address; map the first name, last name, postal code and country columns.',
    );
    expect(qualityAdvice({ ...counts, events: 0 }, 'meta_ads', 'app', all)).toEqual([]);
    expect(qualityAdvice(counts, 'bigquery', 'app', all)).toEqual([]);
  });
});

/** A one-route server answering `answer(request)` as JSON; what it was asked is kept. */
async function platform(answer: (request: IncomingMessage) => [number, unknown]) {
  const asked: Array<{ url: string; authorization?: string }> = [];
  const server: Server = createServer((request, response) => {
    asked.push({ url: request.url ?? '', authorization: request.headers.authorization });
    const [status, body] = answer(request);
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, asked, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("Meta's Dataset Quality (Event Match Quality)", () => {
  const documented = {
    web: [
      {
        event_name: 'Lead',
        event_match_quality: {
          composite_score: 6.2,
          match_key_feedback: [
            { identifier: 'email', coverage: { percentage: 100 } },
            { identifier: 'ip_address', coverage: { percentage: 99.9 } },
          ],
          diagnostics: [
            { name: 'Server sending mismatched IP addresses', solution: 'Send client_ip_address.', percentage: 61.5 },
            { name: 'Invalid email values', solution: 'Normalise em as Meta documents it, then hash it with SHA-256.', percentage: 100 },
          ],
        },
      },
      { event_name: 'PageView' },
    ],
  };

  test('asks for the pixel with the documented fields and reads the score, key coverage and diagnostics', async () => {
    const meta = await platform(() => [200, documented]);
    process.env.META_GRAPH_API_URL = `${meta.url}/v27.0`;
    try {
      const measure = await readDatasetQuality('token-1', '555000111');
      expect(measure).toEqual({
        status: 'reported',
        kind: 'event_scores',
        events: [
          {
            eventName: 'Lead',
            score: 6.2,
            keys: [
              { identifier: 'email', label: 'Email', percentage: 100 },
              { identifier: 'ip_address', label: 'IP address', percentage: 99.9 },
            ],
            // Meta's own words kept; beside them, what they mean to a marketer (no "normalise em").
            diagnostics: [
              {
                name: 'Server sending mismatched IP addresses',
                solution: 'Send client_ip_address.',
                percentage: 61.5,
                text: '61.5 % of the Lead events Meta received: Server sending mismatched IP addresses.',
              },
              {
                name: 'Invalid email values',
                solution: 'Normalise em as Meta documents it, then hash it with SHA-256.',
                percentage: 100,
                text: '100 % of the Lead events Meta received had an email it could not use. SignalBridge puts each email in the form Meta asks before sending, so check that the field it reads holds a real email (not a placeholder or a test value), and whether another tool sends Lead to this pixel too.',
              },
            ],
          },
        ],
      });
      const asked = new URL(meta.asked[0]!.url, meta.url);
      expect(asked.pathname).toBe('/v27.0/dataset_quality');
      expect(asked.searchParams.get('dataset_id')).toBe('555000111');
      expect(asked.searchParams.get('fields')).toContain('event_match_quality{composite_score,match_key_feedback');
      expect(meta.asked[0]!.authorization).toBe('Bearer token-1');
    } finally {
      delete process.env.META_GRAPH_API_URL;
      await meta.close();
    }
  });

  test('an empty answer is "not reported yet"; a dead token is needs_reauth', async () => {
    const meta = await platform((request) =>
      request.headers.authorization === 'Bearer dead'
        ? [400, { error: { code: 190, message: 'Error validating access token' } }]
        : [200, { web: [] }],
    );
    process.env.META_GRAPH_API_URL = meta.url;
    try {
      expect(await readDatasetQuality('token', '1')).toEqual({
        status: 'not_reported',
        message: 'Meta reports no Event Match Quality for this pixel yet.',
      });
      await expect(readDatasetQuality('dead', '1')).rejects.toMatchObject({ code: 'needs_reauth' });
    } finally {
      delete process.env.META_GRAPH_API_URL;
      await meta.close();
    }
  });
});

describe("Google Data Manager's request diagnostics (requestStatus:retrieve)", () => {
  test('reads the status, record count, error and warning counts of our destination (int64 as strings)', async () => {
    const google = await platform(() => [
      200,
      {
        requestStatusPerDestination: [
          {
            destination: { operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '5556667778' }, productDestinationId: '9001' },
            requestStatus: 'PARTIAL_SUCCESS',
            errorInfo: { errorCounts: [{ recordCount: '2', reason: 'PROCESSING_ERROR_REASON_DUPLICATE_TRANSACTION_ID' }] },
            warningInfo: { warningCounts: [] },
            eventsIngestionStatus: { recordCount: '10' },
          },
        ],
      },
    ]);
    process.env.GOOGLE_DATA_MANAGER_API_URL = `${google.url}/v1`;
    try {
      expect(await readRequestStatus('token-2', { id: 'req-1', at: '2026-11-25T10:00:00.000Z' })).toEqual({
        status: 'reported',
        kind: 'request_diagnostics',
        requestId: 'req-1',
        sentAt: '2026-11-25T10:00:00.000Z',
        requestStatus: 'PARTIAL_SUCCESS',
        records: 10,
        errors: [{ reason: 'PROCESSING_ERROR_REASON_DUPLICATE_TRANSACTION_ID', records: 2 }],
        warnings: [],
      });
      const asked = new URL(google.asked[0]!.url, google.url);
      expect(asked.pathname).toBe('/v1/requestStatus:retrieve');
      expect(asked.searchParams.get('requestId')).toBe('req-1');
      expect(google.asked[0]!.authorization).toBe('Bearer token-2');
    } finally {
      delete process.env.GOOGLE_DATA_MANAGER_API_URL;
      await google.close();
    }
  });

  test('no status for the request (an empty answer or 404) is "not reported yet"', async () => {
    let answer: [number, unknown] = [200, {}];
    const google = await platform(() => answer);
    process.env.GOOGLE_DATA_MANAGER_API_URL = google.url;
    try {
      expect((await readRequestStatus('t', { id: 'r', at: null })).status).toBe('not_reported');
      answer = [404, { error: { code: 404, status: 'NOT_FOUND', message: 'Request not found' } }];
      expect((await readRequestStatus('t', { id: 'r', at: null })).status).toBe('not_reported');
    } finally {
      delete process.env.GOOGLE_DATA_MANAGER_API_URL;
      await google.close();
    }
  });
});
