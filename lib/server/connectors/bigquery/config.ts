/** The BigQuery API and the scope a BigQuery login (OAuth or service account) asks for. */
export const bigQueryConfig = () => ({
  apiUrl: process.env.BIGQUERY_API_URL || 'https://bigquery.googleapis.com',
  scopes: ['https://www.googleapis.com/auth/bigquery'],
});
