import { useId } from 'react';
import styles from '@/components/connections/connections.module.css';
import chart from '@/components/ui/chart.module.css';
import { formatDay, formatMoney, formatNumber } from '@/components/connections/shared';
import type { Connection, WrittenDay } from '@/lib/shared/connections/connection';
import { niceMax, useChartFrame } from '@/components/ui/useSvgScale';
import SectionTitle from '@/components/ui/SectionTitle';

const WIDTH = 720;
const HEIGHT = 170;
const PAD = { top: 12, right: 8, bottom: 24, left: 48 };
/** Distinct on white and told apart by the legend and the table, never by colour alone. */
const COLOURS = ['#4263eb', '#f08c00', '#2b8a3e', '#c2255c', '#1098ad', '#7048e8', '#5c940d', '#e8590c'];

type Metric = 'spend' | 'clicks';

const shortNumber = (value: number) => new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 }).format(value);
const shortDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', month: 'short', day: 'numeric' });

/** One metric per day, stacked by account. */
function Bars({ days, accounts, metric, title }: { days: WrittenDay[]; accounts: string[]; metric: Metric; title: string }) {
  const id = useId();
  // Text, margins and height in screen pixels: the viewBox shrinks with the box on a phone, the labels must not.
  const { ref, width, px, pad, height, text, plotWidth, plotHeight } = useChartFrame(WIDTH, {
    pad: PAD,
    minHeight: HEIGHT,
    axisLabelPx: 44,
  });
  const totals = days.map((day) => accounts.reduce((sum, account) => sum + (day.accounts[account]?.[metric] ?? 0), 0));
  const top = niceMax(Math.max(0, ...totals));
  const slot = plotWidth / Math.max(days.length, 1);
  const barWidth = Math.max(2, Math.min(28, slot - 3));
  const y = (value: number) => pad.top + plotHeight - (value / top) * plotHeight;
  // A day label is about 48 px wide: as many as fit, at most 8.
  const labelEvery = Math.max(1, Math.ceil(days.length / Math.max(2, Math.min(8, Math.floor(width / 64)))));
  const total = totals.reduce((sum, value) => sum + value, 0);
  return (
    <svg ref={ref} viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={`${id}-title`} aria-describedby={`${id}-desc`}>
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>
        {`${formatNumber(Math.round(total * 100) / 100)} in total over ${days.length} days (${formatDay(days[0]!.date)} to ${formatDay(days[days.length - 1]!.date)}). The table below lists each day.`}
      </desc>
      {[0, top / 2, top].map((value) => (
        <g key={value}>
          <line className={chart.grid} x1={pad.left} x2={WIDTH - pad.right} y1={y(value)} y2={y(value)} />
          <text className={chart.axis} style={text} x={pad.left - px(6)} y={y(value) + px(4)} textAnchor="end">
            {shortNumber(value)}
          </text>
        </g>
      ))}
      {days.map((day, index) => {
        const x = pad.left + index * slot + (slot - barWidth) / 2;
        let base = 0;
        return (
          <g key={day.date}>
            {accounts.map((account, accountIndex) => {
              const value = day.accounts[account]?.[metric] ?? 0;
              if (value <= 0) return null;
              const rect = (
                <rect
                  key={account}
                  x={x}
                  width={barWidth}
                  y={y(base + value)}
                  height={y(base) - y(base + value)}
                  fill={COLOURS[accountIndex % COLOURS.length]}
                />
              );
              base += value;
              return rect;
            })}
            {index % labelEvery === 0 && (
              <text className={chart.axis} style={text} x={pad.left + index * slot + slot / 2} y={height - px(6)} textAnchor="middle">
                {shortDay(day.date)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/** The accounts by the currency of their spend: the last one their days recorded ('' for days written before currencies were). */
export function currencyGroups(days: WrittenDay[], accounts: string[]): Array<{ currency: string; accounts: string[] }> {
  const currencyOf = new Map<string, string>();
  for (const day of days) {
    for (const [account, figures] of Object.entries(day.accounts)) {
      if (figures.currency || !currencyOf.has(account)) currencyOf.set(account, figures.currency ?? currencyOf.get(account) ?? '');
    }
  }
  const groups = new Map<string, string[]>();
  // An account with nothing written has no spend to chart.
  for (const account of accounts.filter((candidate) => currencyOf.has(candidate))) {
    const currency = currencyOf.get(account)!;
    groups.set(currency, [...(groups.get(currency) ?? []), account]);
  }
  return [...groups.entries()]
    .map(([currency, members]) => ({ currency, accounts: members }))
    .sort((a, b) => ((a.currency === '') === (b.currency === '') ? a.currency.localeCompare(b.currency) : a.currency === '' ? 1 : -1));
}

/**
 * Spend and clicks per day by account, from the days written (the last 30): inline SVG with a title
 * and a summary, and the same figures in a table only screen readers see. Spend is charted once per
 * currency: amounts in different currencies are never added (no rate is applied).
 */
export default function PerformanceChart({ days, connection }: { days: WrittenDay[]; connection: Connection }) {
  const captionId = useId();
  const accounts = [
    ...new Set([...connection.source.accounts.map((account) => account.id), ...days.flatMap((day) => Object.keys(day.accounts))]),
  ];
  const nameOf = (id: string) => connection.source.accounts.find((account) => account.id === id)?.name || id;
  if (days.length === 0) {
    return (
      <section className="stack" aria-labelledby={captionId}>
        <SectionTitle id={captionId}>Spend and clicks per day</SectionTitle>
        <p className="empty-state">Nothing written yet. After the first run, the days it wrote are charted here by account.</p>
      </section>
    );
  }
  const groups = currencyGroups(days, accounts);
  const currencyOf = new Map(groups.flatMap((group) => group.accounts.map((account) => [account, group.currency] as const)));
  return (
    <section className="stack" aria-labelledby={captionId}>
      <SectionTitle id={captionId}>Spend and clicks per day</SectionTitle>
      <ul className={styles.legendList} aria-label="Accounts">
        {accounts.map((account, index) => (
          <li key={account}>
            <span className={chart.swatch} style={{ background: COLOURS[index % COLOURS.length] }} aria-hidden="true" />
            {nameOf(account)}
            {currencyOf.get(account) ? ` (${currencyOf.get(account)})` : ''}
          </li>
        ))}
      </ul>
      {groups.length > 1 && (
        <p className="muted" style={{ margin: 0 }}>
          The accounts spend in {groups.length} currencies: each has its own spend chart, never added together.
        </p>
      )}
      <div className={styles.charts}>
        {groups.map((group) => {
          const label = group.currency ? `Spend in ${group.currency}` : 'Spend (currency not recorded)';
          // Accounts keep their colour (their place in the legend) in every chart.
          const members = accounts.map((account) => (group.accounts.includes(account) ? account : ''));
          return (
            <figure key={group.currency} className={chart.chart} data-testid="spend-chart" data-currency={group.currency}>
              <figcaption className={chart.chartTitle}>{label}</figcaption>
              <Bars days={days} accounts={members} metric="spend" title={`${label} per day, stacked by account`} />
            </figure>
          );
        })}
        <figure className={chart.chart}>
          <figcaption className={chart.chartTitle}>Clicks</figcaption>
          <Bars days={days} accounts={accounts} metric="clicks" title="Clicks per day, stacked by account" />
        </figure>
      </div>
      {/* In a clipping box: a table is as wide as its content whatever its own width, and widened the page on a phone. */}
      <div className="sr-only">
        <table>
          <caption>Spend and clicks per day and account</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Account</th>
              <th scope="col">Spend</th>
              <th scope="col">Clicks</th>
              <th scope="col">Impressions</th>
            </tr>
          </thead>
          <tbody>
            {days.flatMap((day) =>
              Object.entries(day.accounts).map(([account, figures]) => (
                <tr key={`${day.date}/${account}`}>
                  <th scope="row">{formatDay(day.date)}</th>
                  <td>{nameOf(account)}</td>
                  <td>{figures.currency ? formatMoney(figures.spend, figures.currency) : formatNumber(figures.spend)}</td>
                  <td>{formatNumber(figures.clicks)}</td>
                  <td>{formatNumber(figures.impressions)}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
