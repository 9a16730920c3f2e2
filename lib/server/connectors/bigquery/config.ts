import { link, type Variable } from '@/lib/server/envVariable';
/** The BigQuery API and the scope a BigQuery login (OAuth or service account) asks for. */
export const bigQueryConfig = () => ({
  apiUrl: process.env.BIGQUERY_API_URL || 'https://bigquery.googleapis.com',
  scopes: ['https://www.googleapis.com/auth/bigquery'],
});

/** Its configuration variables (lib/server/env.ts lists every folder's; .env.example documents them): where the BigQuery API lives. */
export const BIGQUERY_VARIABLES = {
  BIGQUERY_API_URL: link,
} as const satisfies Record<string, Variable>;
