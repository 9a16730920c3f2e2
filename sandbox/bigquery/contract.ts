import type { AdRow } from '@/lib/shared/connections/rows';
import type { Answer, ContractCase } from '@/tests/contract/case';

/**
 * BigQuery's documented facts for the contract suite (tests/contract/connectors.test.ts), against this
 * folder's fake: ad performance written through the BigQuery REST API (v2) with a service account.
 */

const PROJECT = 'acme-warehouse';
const DATASET = 'marketing';
const TABLE = 'contract_rows';
const CONNECTION = 'contract-bigquery';
const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03'];

/** A refusal in the shape of Google's JSON APIs (https://cloud.google.com/bigquery/docs/error-messages). */
function bigQueryError(code: number, reason: string, message: string): Answer {
  return { status: code, body: { error: { code, message, errors: [{ reason, message, domain: 'global' }] } } };
}

function row(date: string, campaign: number): AdRow {
  return {
    date,
    platform: 'google_ads',
    account_id: '1234567890',
    account_name: 'Acme Shoes',
    currency: 'USD',
    time_zone: 'America/New_York',
    campaign_id: `c${campaign}`,
    campaign_name: `Campaign ${campaign}`,
    ad_group_id: null,
    ad_group_name: null,
    ad_id: null,
    ad_name: null,
    impressions: 1000 + campaign,
    clicks: 10 + campaign,
    spend: 12.34 + campaign,
    conversions: 1.5,
    conversion_value: 99.99,
  };
}

export const bigQueryContract: ContractCase = {
  id: 'bigquery',
  login: { key: (fake) => ({ serviceAccountKey: fake.serviceAccountKey }) },
  apis: [
    // https://bigquery.googleapis.com/bigquery/v2/… and /upload/bigquery/v2/… (https://cloud.google.com/bigquery/docs/reference/rest).
    // Version 2 is the only one; connectors/versions.ts pins none, the library writes it.
    { api: 'BigQuery API', requests: /\/bigquery\/v2\//, version: { path: '/bigquery/v2/' } },
  ],
  writer: {
    target: { projectId: PROJECT, dataset: DATASET, table: TABLE },
    slice: { connectionId: CONNECTION, platform: 'google_ads', accountId: '1234567890', from: DAYS[0]!, to: DAYS[2]! },
    rows: DAYS.flatMap((date) => [1, 2, 3, 4].map((campaign) => row(date, campaign))),
    // synced_at is the time of the write: the rest is the row.
    stored: (fake) =>
      fake.bigquery
        .rows(PROJECT, DATASET, TABLE)
        .filter((stored) => stored.connection_id === CONNECTION)
        .map((stored) => Object.fromEntries(Object.entries(stored).filter(([name]) => name !== 'synced_at'))),
  },
  unchecked: {
    deliver:
      'conversions are appended through a load job (a multipart upload) and one MERGE, which BigQuery caps by bytes, not events: the batch is ours (lib/server/connectors/bigquery/delivery.ts), and there are no platform hash forms (the columns hold the hashes ingest made)',
  },
  refusals: [
    {
      what: '401: the credentials are not accepted',
      during: 'writer',
      answer: bigQueryError(401, 'authError', 'Request had invalid authentication credentials.'),
      kind: 'needs_reauth',
    },
    {
      what: '403 accessDenied',
      during: 'writer',
      answer: bigQueryError(
        403,
        'accessDenied',
        'Access Denied: Dataset acme-warehouse:marketing: Permission bigquery.tables.create denied',
      ),
      kind: 'forbidden',
    },
    { what: '500 backendError', during: 'writer', answer: bigQueryError(500, 'backendError', 'Backend error.'), kind: 'retryable' },
    {
      what: '403 rateLimitExceeded',
      during: 'writer',
      answer: bigQueryError(403, 'rateLimitExceeded', 'Exceeded rate limits: too many table update operations for this table.'),
      kind: 'retryable',
    },
    { what: '400 invalid', during: 'writer', answer: bigQueryError(400, 'invalid', 'Invalid table name.'), kind: 'invalid' },
  ],
};
