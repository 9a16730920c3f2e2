import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathPattern, routeTable } from '@/sandbox/routes';

const request = (method: string, path: string) =>
  [{ method } as IncomingMessage, {} as ServerResponse, new URL(`http://sandbox${path}`)] as const;

test('a path pattern: parameters at a segment start, constrained ones anywhere, other colons literal', () => {
  expect(pathPattern('/meta/graph/:version/:pixel(\\d+)/stats').exec('/meta/graph/v23.0/555/stats')?.groups).toEqual({
    version: 'v23.0',
    pixel: '555',
  });
  expect(pathPattern('/meta/graph/:version/:pixel(\\d+)/stats').test('/meta/graph/v23.0/abc/stats')).toBe(false);
  expect(pathPattern('/act_:account(\\d+)/insights').exec('/act_101/insights')?.groups).toEqual({ account: '101' });
  // Google's custom methods: the colon after the customer id is text, not a parameter.
  const upload = pathPattern('/customers/:customer(\\d+):uploadClickConversions');
  expect(upload.exec('/customers/1234567890:uploadClickConversions')?.groups).toEqual({ customer: '1234567890' });
  expect(upload.test('/customers/1234567890:uploadCallConversions')).toBe(false);
  expect(pathPattern('/v1/events:ingest').test('/v1/events:ingest')).toBe(true);
  // Anchored: no more and no less than the path.
  expect(pathPattern('/me').test('/me/adaccounts')).toBe(false);
});

test('a route table answers with the first route whose method and path match, else the platform’s not-found', () => {
  const seen: string[] = [];
  const handle = routeTable(
    [
      ['GET /items/:id', (_req, _res, _url, params) => seen.push(`get ${params.id}`)],
      ['* /items/:id', (req, _res, _url, params) => seen.push(`any ${req.method} ${params.id}`)],
      ['POST /items', () => seen.push('create')],
    ],
    (req, _res, url) => seen.push(`404 ${req.method} ${url.pathname}`),
  );
  handle(...request('GET', '/items/7'));
  handle(...request('DELETE', '/items/7'));
  handle(...request('POST', '/items'));
  handle(...request('GET', '/items'));
  expect(seen).toEqual(['get 7', 'any DELETE 7', 'create', '404 GET /items']);
});
