import { useId } from 'react';
import styles from '@/components/conversions/conversions.module.css';
import chart from '@/components/ui/chart.module.css';
import type { DeliveryHour } from '@/lib/shared/conversions/conversion';
import { niceMax, useChartFrame } from '@/components/ui/useSvgScale';
import { plural } from '@/lib/shared/plural';
import { OUTCOMES, splitUndelivered } from '@/lib/shared/outcomes';

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
 * Delivered, not sent and failed events per hour over the last 48 hours, stacked: drawn as inline SVG, summed
 * up in its label, and listed hour by hour in a table only screen readers see.
 */
export default function DeliveryChart({ hours, now }: { hours: DeliveryHour[]; now: number }) {
  const titleId = useId();
  // Text, margins and height in screen pixels: the viewBox shrinks with the box on a phone, the labels must not.
  const { ref, px, pad, height, text, plotWidth, plotHeight } = useChartFrame(WIDTH, { pad: PAD, minHeight: HEIGHT, axisLabelPx: 32 });
  const byHour = new Map(hours.map((hour) => [hour.hour, hour]));
  // Each hour's undelivered events in the outcome words: not sent (will not go) below failed (kept for Retry).
  const slots = lastHours(now).map((hour) => {
    const { notSent, failed } = splitUndelivered({ failed: byHour.get(hour)?.failed ?? 0, notSent: byHour.get(hour)?.notSent });
    return { hour, delivered: byHour.get(hour)?.delivered ?? 0, notSent, failed };
  });
  const total = (slot: (typeof slots)[number]) => slot.delivered + slot.notSent + slot.failed;
  const delivered = slots.reduce((sum, slot) => sum + slot.delivered, 0);
  const notSent = slots.reduce((sum, slot) => sum + slot.notSent, 0);
  const failed = slots.reduce((sum, slot) => sum + slot.failed, 0);
  const top = niceMax(Math.max(...slots.map(total)));
  const slotWidth = plotWidth / HOURS;
  const barWidth = Math.max(2, slotWidth - 3);
  const y = (value: number) => pad.top + plotHeight - (value / top) * plotHeight;
  const active = slots.filter((slot) => total(slot) > 0);
  const busiest = active.reduce<(typeof slots)[number] | null>((best, slot) => (!best || total(slot) > total(best) ? slot : best), null);
  const summary =
    delivered + notSent + failed === 0
      ? 'No events in the last 48 hours.'
      : `Last 48 hours: ${delivered} ${OUTCOMES.delivered.word}, ${notSent} ${OUTCOMES.not_sent.word}, ${failed} ${OUTCOMES.failed.word}.${busiest ? ` Busiest hour: ${dayAndClock(busiest.hour)}, with ${plural(total(busiest), 'event')}.` : ''}`;

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
              {slot.notSent > 0 && (
                <rect
                  className={styles.notSent}
                  x={x}
                  width={barWidth}
                  y={y(slot.delivered + slot.notSent)}
                  height={y(slot.delivered) - y(slot.delivered + slot.notSent)}
                />
              )}
              {slot.failed > 0 && (
                <rect
                  className={styles.failed}
                  x={x}
                  width={barWidth}
                  y={y(total(slot))}
                  height={y(slot.delivered + slot.notSent) - y(total(slot))}
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
          {OUTCOMES.delivered.label}
        </li>
        <li>
          <span className={`${chart.swatch} ${styles.notSent}`} />
          {OUTCOMES.not_sent.label}
        </li>
        <li>
          <span className={`${chart.swatch} ${styles.failed}`} />
          {OUTCOMES.failed.label}
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
                <th scope="col">{OUTCOMES.delivered.label}</th>
                <th scope="col">{OUTCOMES.not_sent.label}</th>
                <th scope="col">{OUTCOMES.failed.label}</th>
              </tr>
            </thead>
            <tbody>
              {active.map((slot) => (
                <tr key={slot.hour}>
                  <th scope="row">{dayAndClock(slot.hour)}</th>
                  <td>{slot.delivered}</td>
                  <td>{slot.notSent}</td>
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
