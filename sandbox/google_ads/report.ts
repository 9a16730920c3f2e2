/**
 * The sandbox's Google Ads reporting: ad performance through `googleAds:searchStream`, its GAQL checked as
 * Google checks it for the fields and resources the sandbox knows, its figures from sandbox/adData.ts;
 * `SELECT customer.… FROM customer` for a customer's settings; an account's switched-on failure in
 * Google's shape. The conversions by conversion date are sandbox/google_ads/counted.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdDataLevel, AdFacts } from '@/sandbox/adData';
import { ADS_VERSION, adsAccess, adsFailure, GOOGLE_CUSTOMERS, type GoogleCustomer } from '@/sandbox/google_ads/accounts';
import { conversionsByDate } from '@/sandbox/google_ads/counted';
import { camelCase, dateFilter, type DateRange, type QueryRefusal } from '@/sandbox/google_ads/gaql';
import { readBody, json, writable } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** The resources googleAds:searchStream serves in the sandbox, and the ad-data level each reads. */
const STREAM_RESOURCES = { campaign: 'campaign', ad_group: 'ad_group', ad_group_ad: 'ad' } as const satisfies Record<string, AdDataLevel>;
type StreamResource = keyof typeof STREAM_RESOURCES;
const ANY_RESOURCE: readonly StreamResource[] = ['campaign', 'ad_group', 'ad_group_ad'];

/** One reported object on one day (or over the whole filter, when segments.date is not selected), of one customer. */
interface StreamRow {
  customerId: string;
  customer: GoogleCustomer;
  facts: AdFacts;
}

// Proto3 JSON as REST sends it: int64 as a string, double as a number, and a zero left out.
const int64 = (value: number) => (value ? String(value) : undefined);
const double = (value: number) => (value ? value : undefined);

/**
 * The GAQL fields the sandbox knows: the FROM resources each may be selected with, where it goes in a
 * REST row (camelCase) and its value. Any other field is unrecognized, as a misspelt one is at Google.
 */
const GAQL_FIELDS: Record<string, { resources: readonly StreamResource[]; path: string[]; value: (row: StreamRow) => unknown }> = {
  'customer.id': { resources: ANY_RESOURCE, path: ['customer', 'id'], value: (row) => row.customerId },
  'customer.descriptive_name': { resources: ANY_RESOURCE, path: ['customer', 'descriptiveName'], value: (row) => row.customer.name },
  'customer.currency_code': { resources: ANY_RESOURCE, path: ['customer', 'currencyCode'], value: (row) => row.customer.currency },
  'customer.time_zone': { resources: ANY_RESOURCE, path: ['customer', 'timeZone'], value: (row) => row.customer.timeZone },
  'campaign.id': { resources: ANY_RESOURCE, path: ['campaign', 'id'], value: (row) => row.facts.campaignId },
  'campaign.name': { resources: ANY_RESOURCE, path: ['campaign', 'name'], value: (row) => row.facts.campaignName },
  'ad_group.id': { resources: ['ad_group', 'ad_group_ad'], path: ['adGroup', 'id'], value: (row) => row.facts.adGroupId },
  'ad_group.name': { resources: ['ad_group', 'ad_group_ad'], path: ['adGroup', 'name'], value: (row) => row.facts.adGroupName },
  'ad_group_ad.ad.id': { resources: ['ad_group_ad'], path: ['adGroupAd', 'ad', 'id'], value: (row) => row.facts.adId },
  'ad_group_ad.ad.name': { resources: ['ad_group_ad'], path: ['adGroupAd', 'ad', 'name'], value: (row) => row.facts.adName },
  'segments.date': { resources: ANY_RESOURCE, path: ['segments', 'date'], value: (row) => row.facts.date },
  'metrics.impressions': { resources: ANY_RESOURCE, path: ['metrics', 'impressions'], value: (row) => int64(row.facts.impressions) },
  'metrics.clicks': { resources: ANY_RESOURCE, path: ['metrics', 'clicks'], value: (row) => int64(row.facts.clicks) },
  'metrics.cost_micros': { resources: ANY_RESOURCE, path: ['metrics', 'costMicros'], value: (row) => int64(row.facts.spendMicros) },
  'metrics.conversions': { resources: ANY_RESOURCE, path: ['metrics', 'conversions'], value: (row) => double(row.facts.conversions) },
  'metrics.conversions_value': {
    resources: ANY_RESOURCE,
    path: ['metrics', 'conversionsValue'],
    value: (row) => double(row.facts.valueMicros / 1_000_000),
  },
};

/** The fields of `SELECT … FROM customer` the sandbox serves (the customer's settings, no metrics). */
const CUSTOMER_FIELDS: Record<string, (id: string, customer: GoogleCustomer) => unknown> = {
  'customer.id': (id) => id,
  'customer.descriptive_name': (_id, customer) => customer.name,
  'customer.currency_code': (_id, customer) => customer.currency,
  'customer.time_zone': (_id, customer) => customer.timeZone,
  'customer.manager': (_id, customer) => customer.manager,
};

/** How many rows REST searchStream puts in one batch of its JSON array. */
const STREAM_BATCH_ROWS = 10_000;

interface GaqlQuery {
  resource: StreamResource;
  fields: string[];
  range: DateRange;
}

/** The GAQL of a searchStream, checked as Google checks it for the fields and resources the sandbox knows. */
function parseGaql(text: string): GaqlQuery | QueryRefusal {
  const query = text.replace(/\s+/g, ' ').trim();
  if (!/^SELECT /i.test(query)) return { queryError: 'EXPECTED_SELECT', message: 'SELECT is missing at the beginning of query.' };
  const parts = /^SELECT (.+?) FROM (\S+)(?: WHERE (.+))?$/i.exec(query);
  if (!parts) return { queryError: 'EXPECTED_FROM', message: 'Missing FROM clause.' };
  const fields = parts[1]!.split(',').map((field) => field.trim());
  const resource = parts[2]!;
  const unknown = fields.filter((field) => !GAQL_FIELDS[field]);
  if (unknown.length)
    return {
      queryError: 'UNRECOGNIZED_FIELD',
      message: `Unrecognized fields in the query: ${unknown.map((field) => `'${field}'`).join(', ')}.`,
    };
  if (!(resource in STREAM_RESOURCES)) {
    return {
      queryError: 'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE',
      message: `The sandbox's searchStream serves FROM campaign, ad_group or ad_group_ad, not '${resource}'.`,
    };
  }
  const from = resource as StreamResource;
  const incompatible = fields.find((field) => !GAQL_FIELDS[field]!.resources.includes(from));
  if (incompatible) {
    const other = incompatible.split('.')[0];
    return {
      queryError: 'PROHIBITED_RESOURCE_TYPE_IN_SELECT_CLAUSE',
      message: `Cannot select fields from the following resource: '${other}', since the resource is incompatible with the resource in FROM clause.`,
    };
  }
  let range: DateRange = null;
  if (parts[3]) {
    const filter = dateFilter(parts[3]);
    if (filter && 'queryError' in filter) return filter;
    range = filter;
  }
  if (fields.includes('segments.date') && !range) {
    return {
      queryError: 'EXPECTED_FILTERS_ON_DATE_RANGE',
      message: 'A finite date range must be specified in the WHERE clause when segments.date is selected.',
    };
  }
  return { resource: from, fields, range };
}

/** A GoogleAdsRow in REST JSON: the selected fields, each resource with its resource name. */
function restRow(row: StreamRow, query: GaqlQuery): Json {
  const { customerId, facts } = row;
  const resourceNames: Record<string, string> = {
    customer: `customers/${customerId}`,
    campaign: `customers/${customerId}/campaigns/${facts.campaignId}`,
    adGroup: `customers/${customerId}/adGroups/${facts.adGroupId}`,
    adGroupAd: `customers/${customerId}/adGroupAds/${facts.adGroupId}~${facts.adId}`,
  };
  const result: Json = { [camelCase(query.resource)]: { resourceName: resourceNames[camelCase(query.resource)] } };
  for (const field of query.fields) {
    const { path, value } = GAQL_FIELDS[field]!;
    let target = result;
    path.slice(0, -1).forEach((key, depth) => {
      const name = depth === 0 ? resourceNames[key] : key === 'ad' ? `customers/${customerId}/ads/${facts.adId}` : undefined;
      target = (target[key] ??= name ? { resourceName: name } : {}) as Json;
    });
    const fieldValue = value(row);
    if (fieldValue !== undefined && fieldValue !== null) target[path[path.length - 1]!] = fieldValue;
  }
  return result;
}

/** `googleAds:searchStream` and what it serves, on the store's ad performance and failure switches. */
export function createSearchStream(store: SandboxStore) {
  /** A switched-on failure of an account's reports, in Google's shape: 429 with its retry delay (when the failure ends), 5xx internal. */
  function adsOutage(res: ServerResponse, status: number, retrySeconds: number) {
    const retryDelay = `${retrySeconds}s`;
    const [statusText, message, errorCode]: [string, string, Json] =
      status === 429
        ? ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', { quotaError: 'RESOURCE_EXHAUSTED' }]
        : status === 503
          ? ['UNAVAILABLE', 'The service is currently unavailable.', { internalError: 'TRANSIENT_ERROR' }]
          : status === 401
            ? ['UNAUTHENTICATED', 'Request had invalid authentication credentials.', { authenticationError: 'OAUTH_TOKEN_REVOKED' }]
            : status === 403
              ? ['PERMISSION_DENIED', 'The caller does not have permission', { authorizationError: 'USER_PERMISSION_DENIED' }]
              : ['INTERNAL', 'Internal error encountered.', { internalError: 'INTERNAL_ERROR' }];
    const quota =
      status === 429
        ? { details: { quotaErrorDetails: { rateScope: 'ACCOUNT', rateName: 'Number of operations for basic access', retryDelay } } }
        : {};
    return json(res, status, {
      error: {
        code: status,
        message,
        status: statusText,
        details: [
          {
            '@type': `type.googleapis.com/google.ads.googleads.${ADS_VERSION}.errors.GoogleAdsFailure`,
            errors: [
              {
                errorCode,
                message: status === 429 ? `Too many requests. Retry in ${retryDelay.replace('s', '')} seconds.` : message,
                ...quota,
              },
            ],
            requestId: token(''),
          },
          ...(status === 429 ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }] : []),
        ],
      },
    });
  }

  /** Waits until a streamed answer may take more, or the caller went away (then false). */
  async function drained(res: ServerResponse, wrote: boolean): Promise<boolean> {
    if (!wrote && !res.destroyed) await writable(res);
    return !res.destroyed;
  }

  /**
   * googleAds:searchStream over REST: one JSON array of batches ({results, fieldMask, requestId}, up
   * to 10,000 rows each), written as the rows are made, so a long window is never held whole.
   */
  async function googleAdsSearchStream(req: IncomingMessage, res: ServerResponse, customerId: string) {
    const body = JSON.parse((await readBody(req)) || '{}') as { query?: string };
    if (!adsAccess(req, res, customerId)) return;
    const failure = store.adData.failureOf(customerId);
    if (failure) return adsOutage(res, failure, store.adData.failureEndsIn(customerId) ?? 30);
    if ((body.query ?? '').includes('metrics.all_conversions_by_conversion_date'))
      return conversionsByDate(store, res, customerId, body.query ?? '');
    if (/\bFROM customer\s*$/i.test(body.query ?? '')) return customerSettings(res, customerId, body.query ?? '');
    const query = parseGaql(body.query ?? '');
    if ('queryError' in query) return adsFailure(res, 400, 'INVALID_ARGUMENT', { queryError: query.queryError }, query.message);
    const customer = GOOGLE_CUSTOMERS[customerId]!;
    const metrics = query.fields.some((field) => field.startsWith('metrics.'));
    if (customer.manager && metrics) {
      return adsFailure(
        res,
        400,
        'INVALID_ARGUMENT',
        { queryError: 'REQUESTED_METRICS_FOR_MANAGER' },
        'Metrics cannot be requested for a manager account. To retrieve metrics, issue separate requests against each client account under the manager account.',
      );
    }
    const fieldMask = query.fields.map((field) => field.split('.').map(camelCase).join('.')).join(',');
    const requestId = token('');
    res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8' });
    let open = await drained(res, res.write('['));
    let batches = 0;
    let results: Json[] = [];
    const flush = async () => {
      const batch = { ...(results.length ? { results } : {}), fieldMask, requestId };
      open = await drained(res, res.write(`${batches ? ',\r\n' : ''}${JSON.stringify(batch)}`));
      batches += 1;
      results = [];
    };
    for (const row of customer.manager ? [] : streamRows(customerId, query)) {
      if (!open) return;
      results.push(restRow(row, query));
      if (results.length === STREAM_BATCH_ROWS) await flush();
    }
    if (results.length || !batches) await flush();
    res.end(']');
  }

  /**
   * `SELECT customer.… FROM customer`: the customer's own settings, one row (a manager's too: no metrics are
   * asked). Its `time_zone` is the zone of the customer's `segments.date` (the conversions by date above).
   */
  function customerSettings(res: ServerResponse, customerId: string, text: string) {
    const fields = (/^\s*SELECT (.+?) FROM customer\s*$/i.exec(text)?.[1] ?? '').split(',').map((field) => field.trim());
    const unknown = fields.filter((field) => !CUSTOMER_FIELDS[field]);
    if (unknown.length)
      return adsFailure(
        res,
        400,
        'INVALID_ARGUMENT',
        { queryError: 'UNRECOGNIZED_FIELD' },
        `Unrecognized fields in the query: ${unknown.map((field) => `'${field}'`).join(', ')}.`,
      );
    const customer = GOOGLE_CUSTOMERS[customerId]!;
    const row: Json = { resourceName: `customers/${customerId}` };
    for (const field of fields) row[camelCase(field.slice('customer.'.length))] = CUSTOMER_FIELDS[field]!(customerId, customer);
    const fieldMask = fields.map((field) => field.split('.').map(camelCase).join('.')).join(',');
    return json(res, 200, [{ results: [{ customer: row }], fieldMask, requestId: token('') }]);
  }

  /** The rows of a query: per day when segments.date is selected, else summed over the filter (all history without one). */
  function* streamRows(customerId: string, query: GaqlQuery): Generator<StreamRow> {
    const customer = GOOGLE_CUSTOMERS[customerId]!;
    const account = { id: customerId, name: customer.name, currency: customer.currency, timeZone: customer.timeZone };
    const level = STREAM_RESOURCES[query.resource];
    const facts = store.adData.rowsOf('google', account, level, query.range?.from ?? '0001-01-01', query.range?.to ?? '9999-12-31');
    if (query.fields.includes('segments.date')) {
      for (const day of facts) yield { customerId, customer, facts: day };
      return;
    }
    const totals = new Map<string, AdFacts>();
    for (const day of facts) {
      const key = level === 'campaign' ? day.campaignId : level === 'ad_group' ? day.adGroupId! : day.adId!;
      const total = totals.get(key);
      if (!total) {
        totals.set(key, { ...day });
        continue;
      }
      total.impressions += day.impressions;
      total.clicks += day.clicks;
      total.spendMicros += day.spendMicros;
      total.conversions += day.conversions;
      total.valueMicros += day.valueMicros;
    }
    for (const total of totals.values()) yield { customerId, customer, facts: total };
  }

  return googleAdsSearchStream;
}
