import { mixpanel } from '@/lib/server/connectors/mixpanel';
import { AD_DATA_EVENT, adDataInsertId } from '@/lib/server/connectors/mixpanel/adData';
import type { AdDataSlice, AdDataWriter, Session, WriteTarget } from '@/lib/server/connectors/types';
import { adRowKey, type AdRow } from '@/lib/shared/connections/rows';
import { type FakePlatforms, SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { refusal } from '@/tests/api/helpers/delivery';
import { closeMixpanelSandbox, connectMixpanel, openMixpanelSandbox } from '@/tests/api/helpers/mixpanel';
import type { LogSpy } from '@/tests/fixtures/logSpy';

// Ad performance as Mixpanel 'Ad Data' events through the Import API: 2,000 per call, one event
// per row and day whose four dedup values never change, so a rerun replaces the earlier copies.
const US = SANDBOX_MIXPANEL.projects.US;
const TARGET: WriteTarget = { projectId: US.id, residency: 'US' };
const SLICE: AdDataSlice = { connectionId: 'conn-mp', platform: 'meta_ads', accountId: 'act_42', from: '2026-03-01', to: '2026-03-03' };
const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03'];

let platforms: FakePlatforms;
let session: Session;
let logged: LogSpy;
const writer = mixpanel.writer as AdDataWriter;

function row(date: string, ad: number, overrides: Partial<AdRow> = {}): AdRow {
  return {
    date,
    platform: 'meta_ads',
    account_id: 'act_42',
    account_name: 'Acme on Meta',
    currency: 'EUR',
    time_zone: 'Europe/Berlin',
    campaign_id: `cmp${ad % 7}`,
    campaign_name: `Spring sale ${ad % 7}`,
    ad_group_id: `set${ad % 31}`,
    ad_group_name: `Ad set ${ad % 31}`,
    ad_id: `ad${ad}`,
    ad_name: `Ad ${ad}`,
    impressions: 100 + ad,
    clicks: ad % 50,
    spend: 1.25,
    conversions: 0.5,
    conversion_value: 10,
    ...overrides,
  };
}

const rows = (overrides: Partial<AdRow> = {}) => DAYS.flatMap((date) => Array.from({ length: 1500 }, (_, ad) => row(date, ad, overrides)));
const adData = () => platforms.mixpanel.events(US.id, AD_DATA_EVENT);

beforeAll(async () => {
  ({ platforms, logged } = await openMixpanelSandbox());
  ({ session } = await connectMixpanel(US.id, 'US'));
});
afterAll(() => closeMixpanelSandbox({ platforms, logged }));
afterEach(() => {
  platforms.conversions.failures.delete('mixpanel');
});

describe('checking the destination', () => {
  test('the service account is accepted for the project', async () => {
    expect(await writer.check(session, TARGET)).toMatch(
      /Mixpanel accepts this service account for Acme Web \(US\) \(project 3001, US data center\)/,
    );
  });

  test('another project is forbidden; a revoked secret is needs_reauth', async () => {
    expect((await refusal(writer.check(session, { projectId: '9999' }))).code).toBe('forbidden');
    const revoked = { ...session, accessToken: Buffer.from(`${SANDBOX_MIXPANEL.username}:revoked`).toString('base64') };
    expect((await refusal(writer.check(revoked, TARGET))).code).toBe('needs_reauth');
    expect((await refusal(writer.replace(revoked, TARGET, SLICE, [row('2026-03-01', 1)]))).code).toBe('needs_reauth');
  });
});

describe('writing Ad Data events', () => {
  test('4,500 rows go in 3 import calls and are read back once each', async () => {
    const given = rows();
    const result = await writer.replace(session, TARGET, SLICE, given);
    expect(result).toEqual({ written: 4500, calls: 3, failed: [] });
    expect(platforms.mixpanel.importCalls(US.id)).toBe(3);

    const events = adData();
    expect(events).toHaveLength(4500);
    expect(events.every((stored) => stored.receipts === 1)).toBe(true);
    const first = given[0]!;
    expect(events.find((stored) => stored.properties.$insert_id === adDataInsertId(SLICE.connectionId, first))).toMatchObject({
      event: AD_DATA_EVENT,
      properties: {
        time: Date.UTC(2026, 2, 1),
        distinct_id: '',
        source: 'meta_ads',
        account_id: 'act_42',
        account_name: 'Acme on Meta',
        campaign_id: 'cmp0',
        campaign_name: 'Spring sale 0',
        ad_group_id: 'set0',
        ad_group_name: 'Ad set 0',
        ad_id: 'ad0',
        ad_name: 'Ad 0',
        date: '2026-03-01',
        currency: 'EUR',
        cost: 1.25,
        clicks: 0,
        impressions: 100,
        conversions: 0.5,
        conversion_value: 10,
        utm_source: 'facebook',
        utm_campaign: 'Spring sale 0',
      },
    });
    // Mixpanel's rules for $insert_id: at most 36 characters of [A-Za-z0-9-].
    expect(events.every((stored) => /^[A-Za-z0-9-]{1,36}$/.test(String(stored.properties.$insert_id)))).toBe(true);
    // Ad spend is no conversion: nothing in the conversions ledger.
    expect(platforms.conversions.list('mixpanel')).toHaveLength(0);
  });

  test('a rerun with restated values keeps one event per row, with the new values', async () => {
    const before = new Set(adData().map((stored) => stored.properties.$insert_id));
    const result = await writer.replace(session, TARGET, SLICE, rows({ spend: 2.5, clicks: 3 }));
    expect(result).toEqual({ written: 4500, calls: 3, failed: [] });
    const events = adData();
    expect(events).toHaveLength(4500);
    expect(new Set(events.map((stored) => stored.properties.$insert_id))).toEqual(before);
    expect(events.every((stored) => stored.receipts === 2 && stored.properties.cost === 2.5 && stored.properties.clicks === 3)).toBe(true);
  });

  test('the $insert_id depends on the connection and the row key only', () => {
    const base = row('2026-03-01', 1);
    expect(adDataInsertId('conn-mp', { ...base, spend: 99 })).toBe(adDataInsertId('conn-mp', base));
    expect(adDataInsertId('conn-other', base)).not.toBe(adDataInsertId('conn-mp', base));
    expect(adDataInsertId('conn-mp', { ...base, date: '2026-03-02' })).not.toBe(adDataInsertId('conn-mp', base));
  });

  test('a row Mixpanel refuses comes back in failed; the others are written', async () => {
    const refused = row('1970-06-01', 7777);
    const result = await writer.replace(session, TARGET, { ...SLICE, from: '1970-06-01', to: '2026-03-05' }, [
      row('2026-03-05', 1),
      refused,
      row('2026-03-05', 2),
    ]);
    expect(result.written).toBe(2);
    expect(result.calls).toBe(1);
    expect(result.failed).toEqual([{ key: adRowKey(refused), message: expect.stringMatching(/after 1971-01-01/) }]);
    expect(adData().filter((stored) => stored.properties.date === '2026-03-05')).toHaveLength(2);
    expect(adData().some((stored) => stored.properties.date === '1970-06-01')).toBe(false);
  });

  test('an empty window sends nothing', async () => {
    const calls = platforms.mixpanel.importCalls(US.id);
    expect(await writer.replace(session, TARGET, SLICE, [])).toEqual({ written: 0, calls: 0, failed: [] });
    expect(platforms.mixpanel.importCalls(US.id)).toBe(calls);
  });

  test('a rate-limited project throws rate_limited; another project is forbidden', async () => {
    platforms.conversions.fail('mixpanel', { status: 429, seconds: 60 });
    expect((await refusal(writer.replace(session, TARGET, SLICE, [row('2026-03-01', 1)]))).code).toBe('rate_limited');
    platforms.conversions.failures.delete('mixpanel');
    expect(
      (await refusal(writer.replace(session, { projectId: SANDBOX_MIXPANEL.projects.EU.id }, SLICE, [row('2026-03-01', 1)]))).code,
    ).toBe('forbidden');
  });
});
