/** @jest-environment node */
import { AD_PLATFORMS, isOAuthPlatform, PLATFORMS, WAREHOUSE_PLATFORMS } from '@/lib/shared/integrations/platforms';
import { CONNECTOR_IDS, connectorFor, keyAuthOf, oauthOf } from '@/lib/server/connectors/registry';

describe('connector registry', () => {
  test('every platform of the catalogue has a connector, and so do Stripe payments', () => {
    for (const platform of [...PLATFORMS, 'stripe'] as const) {
      expect(connectorFor(platform).id).toBe(platform);
    }
    expect([...CONNECTOR_IDS].sort()).toEqual([...PLATFORMS, 'stripe'].sort());
  });

  test('exactly the platforms the catalogue marks as conversion sources have a connector that reads them as one', () => {
    const readers = CONNECTOR_IDS.filter((id) => connectorFor(id).source !== undefined);
    expect(readers.sort()).toEqual([...WAREHOUSE_PLATFORMS].sort());
    expect(WAREHOUSE_PLATFORMS.length).toBeGreaterThan(0);
  });

  test('every OAuth platform of the catalogue has a consent flow', () => {
    for (const platform of PLATFORMS.filter(isOAuthPlatform)) {
      const url = new URL(oauthOf(platform).authorizeUrl('state-1', 'http://localhost:3000/addSource'));
      expect(url.searchParams.get('state')).toBe('state-1');
      expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:3000/addSource');
    }
  });

  test('key-connected platforms name the form field a refused key is shown on', () => {
    expect(keyAuthOf('mixpanel').field).toBe('secret');
    expect(keyAuthOf('bigquery').field).toBe('serviceAccountKey');
    expect(keyAuthOf('stripe').field).toBe('apiKey');
    expect(() => keyAuthOf('meta_ads')).toThrow();
    expect(() => oauthOf('mixpanel')).toThrow();
  });

  test('ad platforms list accounts and conversion targets', () => {
    for (const platform of AD_PLATFORMS) {
      const connector = connectorFor(platform);
      expect(typeof connector.listAccounts).toBe('function');
      expect(typeof connector.listTargets).toBe('function');
    }
  });

  test('each Google product asks for its own scopes on the shared consent', () => {
    const scopes = (platform: 'google_ads' | 'bigquery') =>
      new URL(oauthOf(platform).authorizeUrl('s', 'http://localhost/x')).searchParams.get('scope') ?? '';
    expect(scopes('google_ads')).toContain('https://www.googleapis.com/auth/adwords');
    expect(scopes('bigquery')).toContain('https://www.googleapis.com/auth/bigquery');
    expect(scopes('bigquery')).not.toContain('adwords');
  });
});
