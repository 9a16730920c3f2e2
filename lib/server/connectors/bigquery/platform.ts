import type { CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

/** BigQuery: ad performance written to a table, conversions appended to one, and rows read as a conversion source. Its catalogue record: plain data, shared with the browser. */
export const bigqueryRecord = {
  label: 'BigQuery',
  kinds: ['destination'],
  conversionTarget: 'Table',
  adData: { writesTo: 'table' },
  accountNoun: { one: 'project', many: 'projects' },
  conversionSource: true,
  oauth: {
    provider: 'google',
    startRoute: 'GoogleAds',
    startLayout: 'empty',
    consentPath: { source: '/bigquery', destination: '/bigquery' },
  },
} as const satisfies CatalogueEntry;
