/**
 * What every platform's report of what it counted shares (each platform's own part:
 * sandbox/<platform>/reporting.ts, composed by sandbox/reporting.ts): the reports' movable clock,
 * evenly spread drops, counts per target and day, and a field of the switches' form.
 */
import type { ReceivedConversion } from '@/sandbox/conversions';

/**
 * Whether the i-th entry (0-based, in arrival order) is dropped at `share`: spread evenly and the same on
 * every reading (at 20 %, the 5th and 10th of every ten).
 */
export const droppedAt = (index: number, share: number) => share > 0 && Math.floor((index + 1) * share) > Math.floor(index * share);

export type ReportsClock = ReturnType<typeof createClock>;

/**
 * The reports' "now" (which day is the account's today, whether the lag has passed): the wall clock
 * unless a test sets it (`platforms.reporting.clock.set`, or `POST /__sandbox/clock` with `{ "at": ISO
 * or null }`), so a test can stand on either side of a midnight instead of skipping itself.
 */
export function createClock() {
  let fixed: number | null = null;
  return {
    now: () => fixed ?? Date.now(),
    /** A fixed instant (a Date, ms or ISO text), or null for the wall clock again. */
    set(at: Date | number | string | null) {
      fixed = at === null ? null : new Date(at).getTime();
      if (fixed !== null && Number.isNaN(fixed)) fixed = null;
      return fixed;
    },
  };
}

/** Counts per target and day of the entries `keep` keeps (given each entry's index within its target). */
export function countByDay(
  entries: ReceivedConversion[],
  keep: (entry: ReceivedConversion, index: number) => boolean,
  day: (at: number) => string,
): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  const seen = new Map<string, number>();
  for (const entry of entries) {
    const index = seen.get(entry.target) ?? 0;
    seen.set(entry.target, index + 1);
    if (!keep(entry, index)) continue;
    const days = counts.get(entry.target) ?? new Map<string, number>();
    days.set(day(entry.receivedAt), (days.get(day(entry.receivedAt)) ?? 0) + 1);
    counts.set(entry.target, days);
  }
  return counts;
}

/** One number field of the switches' form on /__sandbox/reporting (`name` is `platform.switch`). */
export const switchField = (name: string, label: string, value: number, step: string) =>
  `<label>${label} <input name="${name}" type="number" min="0" step="${step}" value="${value}"></label><br>`;
