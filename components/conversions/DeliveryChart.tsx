import { useId } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import chart from '@/components/ui/chart.module.css';
import type { DeliveryHour } from '@/lib/shared/conversions/conversion';
import { niceMax, useChartFrame } from '@/components/ui/useSvgScale';
import { plural } from '@/lib/shared/plural';

const HOURS = 48;
const WIDTH = 720;
const HEIGHT = 180;
const PAD = { top: 12, right: 8, bottom: 24, left: 36 };

/** The 48 hours ending with the current one, as the server keys them ('YYYY-MM-DDTHH', UTC). */
export function lastHours(now: number, count = HOURS): string[] {
  const current = Math.floor(now / 3_600_000) * 3_600_000;
  return Array.from({ length: count }, (_, index) => new Date(current - (count - 1 - index) * 3_600_000).toISOString().slice(0, 13));
}

const startOf = (hour: string) => new Date(`${hour}:00:00Z`);
const clock = (hour: string) => startOf(hour).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
const dayAndClock = (hour: string) => startOf(hour).toLocaleString(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });

/**
 * Delivered and failed events per hour over the last 48 hours, stacked: drawn as inline SVG, summed
 * up in its label, and listed hour by hour in a table only screen readers see.
 */
export default function DeliveryChart({ hours, now }: { hours: DeliveryHour[]; now: number }) {
  const titleId = useId();
  // Text, margins and height in screen pixels: the viewBox shrinks with the box on a phone, the labels must not.
  const { ref, px, pad, height, text, plotWidth, plotHeight } = useChartFrame(WIDTH, { pad: PAD, minHeight: HEIGHT, axisLabelPx: 32 });
  const byHour = new Map(hours.map((hour) => [hour.hour, hour]));
  const slots = lastHours(now).map((hour) => ({
    hour,
    delivered: byHour.get(hour)?.delivered ?? 0,
    failed: byHour.get(hour)?.failed ?? 0,
  }));
  const delivered = slots.reduce((total, slot) => total + slot.delivered, 0);
  const failed = slots.reduce((total, slot) => total + slot.failed, 0);
  const top = niceMax(Math.max(...slots.map((slot) => slot.delivered + slot.failed)));
  const slotWidth = plotWidth / HOURS;
  const barWidth = Math.max(2, slotWidth - 3);
  const y = (value: number) => pad.top + plotHeight - (value / top) * plotHeight;
  const active = slots.filter((slot) => slot.delivered + slot.failed > 0);
  const busiest = active.reduce<(typeof slots)[number] | null>(
    (best, slot) => (!best || slot.delivered + slot.failed > best.delivered + best.failed ? slot : best),
    null,
  );
  const summary =
    delivered + failed === 0
      ? 'No events in the last 48 hours.'
      : `Last 48 hours: ${delivered} delivered, ${failed} failed.${busiest ? ` Busiest hour: ${dayAndClock(busiest.hour)}, with ${plural(busiest.delivered + busiest.failed, 'event')}.` : ''}`;

  return (
    <figure className={chart.chart}>
      <figcaption id={titleId} className={chart.chartTitle}>
        Deliveries, last 48 hours
      </figcaption>
      <svg ref={ref} viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-labelledby={titleId} aria-describedby={`${titleId}-summary`}>
        {[0, top / 2, top].map((value) => (
          <g key={value}>
            <line className={chart.grid} x1={pad.left} x2={WIDTH - pad.right} y1={y(value)} y2={y(value)} />
            <text className={chart.axis} style={text} x={pad.left - px(6)} y={y(value) + px(4)} textAnchor="end">
              {value}
            </text>
          </g>
        ))}
        {slots.map((slot, index) => {
          const x = pad.left + index * slotWidth + (slotWidth - barWidth) / 2;
          return (
            <g key={slot.hour}>
              {slot.delivered > 0 && (
                <rect className={styles.delivered} x={x} width={barWidth} y={y(slot.delivered)} height={y(0) - y(slot.delivered)} />
              )}
              {slot.failed > 0 && (
                <rect
                  className={styles.failed}
                  x={x}
                  width={barWidth}
                  y={y(slot.delivered + slot.failed)}
                  height={y(slot.delivered) - y(slot.delivered + slot.failed)}
                />
              )}
              {index % 12 === 0 && (
                <text className={chart.axis} style={text} x={pad.left + index * slotWidth} y={height - px(6)}>
                  {clock(slot.hour)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <ul className={styles.chartLegend} aria-hidden="true">
        <li>
          <span className={`${chart.swatch} ${styles.delivered}`} />
          Delivered
        </li>
        <li>
          <span className={`${chart.swatch} ${styles.failed}`} />
          Failed
        </li>
      </ul>
      <p id={`${titleId}-summary`} className="sr-only">
        {summary}
      </p>
      {active.length > 0 && (
        // In a clipping box: a table is as wide as its content whatever its own width, and widened the page on a phone.
        <div className="sr-only">
          <table>
            <caption>Hours with deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Hour</th>
                <th scope="col">Delivered</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              {active.map((slot) => (
                <tr key={slot.hour}>
                  <th scope="row">{dayAndClock(slot.hour)}</th>
                  <td>{slot.delivered}</td>
                  <td>{slot.failed}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}
