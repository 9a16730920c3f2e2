import { schedulesAllowed } from '@/lib/shared/connections/connection';
import { createConnectionSchema } from '@/lib/shared/schemas/connections';
import { adRowKey, fromMicros, type AdRow } from '@/lib/shared/connections/rows';
import { chunksOf, daysInclusive, earliestBackfillDay, lookbackWindow, nextRunAt } from '@/lib/shared/connections/windows';

// Which days a run reads, when the next one is due, and how a backfill is cut: pure functions the
// scheduler, the workers and the backfill form share.

describe('the lookback window', () => {
  it('re-reads the last N days of every time zone’s calendar, from UTC−12’s today back to UTC+14’s', () => {
    // 09:00 UTC: it is still the 22nd on Baker Island (UTC−12) and already the 23rd in Kiribati (UTC+14).
    const window = lookbackWindow(14, new Date('2026-11-23T09:00:00Z'));
    expect(window).toEqual({ from: '2026-11-09', to: '2026-11-23' });
    expect(daysInclusive(window.from, window.to)).toBe(15);
    // 11:00 UTC: Kiribati is on the 24th while Hawaii (UTC−10) is on the 23rd and UTC−12 on the 22nd: all read.
    expect(lookbackWindow(1, new Date('2026-11-23T11:00:00Z'))).toEqual({ from: '2026-11-22', to: '2026-11-24' });
  });
});

describe('backfill chunks', () => {
  it('covers two years once, in months, oldest first', () => {
    const chunks = chunksOf({ from: '2024-11-23', to: '2026-11-22' });
    expect(chunks[0]).toEqual({ from: '2024-11-23', to: '2024-12-22' });
    expect(chunks.at(-1)!.to).toBe('2026-11-22');
    const days = chunks.reduce((total, chunk) => total + daysInclusive(chunk.from, chunk.to), 0);
    expect(days).toBe(daysInclusive('2024-11-23', '2026-11-22'));
    for (let index = 1; index < chunks.length; index++) {
      expect(daysInclusive(chunks[index - 1]!.to, chunks[index]!.from)).toBe(2);
    }
  });

  it('is one chunk for a short window, and bounded by what the platform keeps', () => {
    expect(chunksOf({ from: '2026-11-01', to: '2026-11-03' })).toEqual([{ from: '2026-11-01', to: '2026-11-03' }]);
    expect(earliestBackfillDay(37, new Date('2026-11-23T12:00:00Z'))).toBe('2023-10-23');
  });
});

describe('the next run', () => {
  const at = (iso: string) => new Date(iso);

  it('is on the next hour, quarter hour or six-hour mark', () => {
    expect(nextRunAt({ every: 'hourly', at: '06:00', timeZone: 'UTC' }, at('2026-11-23T09:17:00Z')).toISOString()).toBe(
      '2026-11-23T10:00:00.000Z',
    );
    expect(nextRunAt({ every: '15_minutes', at: '06:00', timeZone: 'UTC' }, at('2026-11-23T09:17:00Z')).toISOString()).toBe(
      '2026-11-23T09:30:00.000Z',
    );
    expect(nextRunAt({ every: '6_hours', at: '06:00', timeZone: 'UTC' }, at('2026-11-23T09:17:00Z')).toISOString()).toBe(
      '2026-11-23T12:00:00.000Z',
    );
    // Every six hours from local midnight: in India (UTC+5:30) the marks fall on the half hour UTC.
    expect(nextRunAt({ every: '6_hours', at: '06:00', timeZone: 'Asia/Kolkata' }, at('2026-11-23T09:17:00Z')).toISOString()).toBe(
      '2026-11-23T12:30:00.000Z',
    );
  });

  it('is daily at the local time of the schedule’s time zone, across DST', () => {
    // 06:00 in Berlin is 05:00 UTC in winter.
    expect(nextRunAt({ every: 'daily', at: '06:00', timeZone: 'Europe/Berlin' }, at('2026-11-23T09:00:00Z')).toISOString()).toBe(
      '2026-11-24T05:00:00.000Z',
    );
    expect(nextRunAt({ every: 'daily', at: '06:00', timeZone: 'Europe/Berlin' }, at('2026-11-23T04:00:00Z')).toISOString()).toBe(
      '2026-11-23T05:00:00.000Z',
    );
    // New York leaves daylight time on 2026-11-01: 06:00 is 10:00 UTC before, 11:00 UTC after.
    expect(nextRunAt({ every: 'daily', at: '06:00', timeZone: 'America/New_York' }, at('2026-10-31T12:00:00Z')).toISOString()).toBe(
      '2026-11-01T11:00:00.000Z',
    );
    expect(nextRunAt({ every: 'daily', at: '06:00', timeZone: 'America/New_York' }, at('2026-10-30T12:00:00Z')).toISOString()).toBe(
      '2026-10-31T10:00:00.000Z',
    );
  });
});

describe('plans and schedules', () => {
  it('lets each sync frequency choose only as often as it allows', () => {
    expect(schedulesAllowed('daily')).toEqual(['daily']);
    expect(schedulesAllowed('hourly')).toEqual(['hourly', '6_hours', 'daily']);
    expect(schedulesAllowed('15-minute')).toContain('15_minutes');
  });
});

describe('a new connection', () => {
  const valid = {
    name: 'Ads to warehouse',
    sourceId: 'src1',
    accountIds: ['123'],
    destinationId: 'dst1',
    level: 'campaign',
    schedule: { every: 'daily' },
  };

  it('defaults the time of day and zone, and names the fields it refuses', () => {
    const parsed = createConnectionSchema.parse(valid);
    expect(parsed.schedule).toEqual({ every: 'daily', at: '06:00', timeZone: 'UTC' });
    const refused = createConnectionSchema.safeParse({
      ...valid,
      accountIds: [],
      level: 'keyword',
      schedule: { every: 'daily', at: '25:00', timeZone: 'Mars/Olympus' },
      dataset: 'my-data',
    });
    expect(refused.success).toBe(false);
    const paths = refused.error!.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['accountIds', 'level', 'schedule.at', 'schedule.timeZone', 'dataset']));
  });
});

describe('the row key', () => {
  const row: AdRow = {
    date: '2026-11-20',
    platform: 'google_ads',
    account_id: '1234567890',
    account_name: 'Acme',
    currency: 'USD',
    time_zone: 'America/New_York',
    campaign_id: '42',
    campaign_name: 'Search',
    ad_group_id: null,
    ad_group_name: null,
    ad_id: null,
    ad_name: null,
    impressions: 10,
    clicks: 1,
    spend: 1.5,
    conversions: 0,
    conversion_value: 0,
  };

  it('is the same for a restated day and differs per level object', () => {
    expect(adRowKey({ ...row, clicks: 9, spend: 7.25 })).toBe(adRowKey(row));
    expect(adRowKey({ ...row, ad_group_id: '7' })).not.toBe(adRowKey(row));
    expect(adRowKey({ ...row, date: '2026-11-21' })).not.toBe(adRowKey(row));
  });

  it('turns micros into the decimal of the account currency', () => {
    expect(fromMicros('5670000')).toBe(5.67);
    expect(fromMicros(1)).toBe(0.000001);
  });
});
