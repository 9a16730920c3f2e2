import { render, screen, within } from '@testing-library/react';
import PerformanceChart from '@/components/connections/PerformanceChart';
import RunHistory from '@/components/connections/RunHistory';
import { daysInWords } from '@/components/connections/shared';
import type { Connection, Run, WrittenDay } from '@/lib/shared/connections/connection';
import { lookbackWindow, runDays } from '@/lib/shared/connections/windows';

const connection = {
  id: 'c1',
  name: 'Ads',
  source: {
    sourceId: 's1',
    platform: 'google_ads',
    accounts: [
      { id: '111', name: 'Shoes US' },
      { id: '222', name: 'Shoes DE' },
    ],
  },
  schedule: { every: 'daily', at: '06:00', timeZone: 'America/New_York' },
} as unknown as Connection;

const run = (overrides: Partial<Run>): Run => ({
  id: 'r1',
  kind: 'scheduled',
  outcome: 'succeeded',
  from: '2026-11-12',
  to: '2026-11-26',
  startedAt: '2026-11-25T21:50:00.000Z',
  finishedAt: '2026-11-25T21:51:00.000Z',
  jobsTotal: 1,
  jobsDone: 1,
  rowsRead: 10,
  rowsWritten: 10,
  calls: 2,
  accounts: {},
  error: null,
  ...overrides,
});

describe('the days of a run, both ends included', () => {
  test('a scheduled run shows its lookback days ending on the day it started where the organization is', () => {
    const started = new Date('2026-11-25T21:50:00Z');
    const window = lookbackWindow(14, started);
    // What it reads reaches the latest "today" anywhere (UTC+14 is on Nov 26 already).
    expect(window).toEqual({ from: '2026-11-12', to: '2026-11-26' });
    const shown = runDays({ kind: 'scheduled', ...window, startedAt: started.toISOString() }, 'America/New_York');
    expect(shown).toEqual({ from: '2026-11-12', to: '2026-11-25' });
    expect(daysInWords(shown)).toBe(`${fmt('2026-11-12')} – ${fmt('2026-11-25')}`);
  });

  test('in a time zone already on the next day the run ends there, and still covers its lookback days', () => {
    const started = new Date('2026-11-25T21:50:00Z');
    const window = lookbackWindow(14, started);
    expect(runDays({ kind: 'manual', ...window, startedAt: started.toISOString() }, 'Pacific/Auckland')).toEqual({
      from: '2026-11-13',
      to: '2026-11-26',
    });
  });

  test('a backfill shows the days asked for, and one day prints once', () => {
    const backfill = { kind: 'backfill', from: '2026-01-01', to: '2026-03-31', startedAt: '2026-11-25T21:50:00Z' };
    expect(runDays(backfill, 'America/New_York')).toEqual({ from: '2026-01-01', to: '2026-03-31' });
    expect(daysInWords({ from: '2026-01-01', to: '2026-01-01' })).toBe(fmt('2026-01-01'));
  });
});

const fmt = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' });

describe('run history', () => {
  test('a failure says its sentence once, with the account it happened to', () => {
    const sentence = 'Google Ads refused the request: quota exhausted.';
    const failed = run({
      outcome: 'failed',
      error: sentence,
      accounts: { '111': { rowsRead: 0, rowsWritten: 0, calls: 1, failed: 1, error: sentence } },
    });
    render(<RunHistory orgId="acme" runs={[failed]} connection={connection} now={Date.parse('2026-11-25T22:00:00Z')} />);
    const errors = within(screen.getByRole('list', { name: 'Errors' })).getAllByRole('listitem');
    expect(errors.map((item) => item.textContent)).toEqual([`Shoes US (111): ${sentence}`]);
    expect(screen.getAllByText(new RegExp(sentence.replace(/[.]/g, '\\.')))).toHaveLength(1);
  });

  test('the days end on the last day of data, and the run opens on its own page', () => {
    render(<RunHistory orgId="acme" runs={[run({})]} connection={connection} now={Date.parse('2026-11-25T22:00:00Z')} />);
    const row = screen.getAllByRole('row')[1]!;
    expect(within(row).getByText(`${fmt('2026-11-12')} – ${fmt('2026-11-25')}`)).toBeInTheDocument();
    expect(within(row).getByRole('link')).toHaveAttribute('href', '/acme/connection/c1/runs/r1');
  });
});

describe('spend chart', () => {
  const days: WrittenDay[] = [
    {
      date: '2026-11-24',
      accounts: {
        '111': { spend: 100, clicks: 10, impressions: 1000, currency: 'USD' },
        '222': { spend: 900, clicks: 5, impressions: 500, currency: 'EUR' },
      },
    },
    {
      date: '2026-11-25',
      accounts: {
        '111': { spend: 50, clicks: 4, impressions: 400, currency: 'USD' },
        '222': { spend: 70, clicks: 3, impressions: 300, currency: 'EUR' },
      },
    },
  ];

  test('accounts in two currencies get one spend chart each, labelled with the currency, never one sum', () => {
    render(<PerformanceChart days={days} connection={connection} />);
    const charts = screen.getAllByTestId('spend-chart');
    expect(charts.map((chart) => chart.querySelector('figcaption')?.textContent)).toEqual(['Spend in EUR', 'Spend in USD']);
    // Each chart's total is its own currency's: 150 USD and 970 EUR, never 1,120.
    const totals = charts.map((chart) => chart.querySelector('desc')?.textContent ?? '');
    expect(totals[0]).toMatch(/^970 in total/);
    expect(totals[1]).toMatch(/^150 in total/);
    expect(screen.queryByText(/1,120/)).toBeNull();
    expect(screen.getByText(/2 currencies/)).toBeInTheDocument();
    // One bar per day and account with spend: two per chart.
    expect(charts.map((chart) => chart.querySelectorAll('rect').length)).toEqual([2, 2]);
  });

  test('one currency: one spend chart', () => {
    const usd = days.map((day) => ({ ...day, accounts: { '111': day.accounts['111']! } }));
    render(<PerformanceChart days={usd} connection={connection} />);
    expect(screen.getAllByTestId('spend-chart')).toHaveLength(1);
    expect(screen.getByText('Spend in USD')).toBeInTheDocument();
  });
});
