import { missingScopes, scopesAskedFor } from '@/lib/server/connectors/scopes';

describe('the scopes a login is asked for, per platform and kind', () => {
  test('read off the consent constants: Google Ads asks adwords and datamanager, Meta its three', () => {
    expect(scopesAskedFor('google_ads', 'destination')).toEqual([
      'https://www.googleapis.com/auth/adwords',
      'https://www.googleapis.com/auth/datamanager',
    ]);
    expect(scopesAskedFor('meta_ads', 'source')).toEqual(['ads_management', 'ads_read', 'business_management']);
    // BigQuery is never a source: a BigQuery "source" asks for nothing.
    expect(scopesAskedFor('bigquery', 'source')).toEqual([]);
  });

  test("a source's Google Ads or Meta login needs no scope more to be a conversion destination", () => {
    expect(missingScopes('google_ads', 'source', 'destination')).toEqual([]);
    expect(missingScopes('meta_ads', 'source', 'destination')).toEqual([]);
  });

  test('a scope asked only by the other kind is reported missing', () => {
    expect(missingScopes('bigquery', 'source', 'destination')).toEqual(['https://www.googleapis.com/auth/bigquery']);
  });
});
