import type { Schedule } from '@/lib/shared/connections/connection';

/**
 * Which days a run reads and when the next one is due. Pure: runs in the browser (the backfill
 * form's chunk count) and the workers alike.
 */

const DAY_MS = 86_400_000;

export const toDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
export const addDays = (day: string, days: number) => toDay(dayMs(day) + days * DAY_MS);
export const daysInclusive = (from: string, to: string) => Math.round((dayMs(to) - dayMs(from)) / DAY_MS) + 1;

export interface Window {
  from: string;
  to: string;
}

/**
 * The days a scheduled run re-reads: the last `lookbackDays` of every account's calendar, wherever it
 * is — from the earliest "today" anywhere (UTC−12) back, up to the latest (UTC+14). A platform answers
 * nothing for days that have not begun in the account's time zone.
 */
export function lookbackWindow(lookbackDays: number, now: Date = new Date()): Window {
  const earliestToday = toDay(now.getTime() - 12 * 3_600_000);
  return { from: addDays(earliestToday, -(lookbackDays - 1)), to: toDay(now.getTime() + 14 * 3_600_000) };
}

/** Backfill chunks: a month of days each (one platform query per account and chunk). */
export const BACKFILL_CHUNK_DAYS = 30;

/** `from`..`to` cut into chunks of at most `chunkDays`, oldest first. */
export function chunksOf({ from, to }: Window, chunkDays = BACKFILL_CHUNK_DAYS): Window[] {
  const chunks: Window[] = [];
  for (let start = from; start <= to; start = addDays(start, chunkDays)) {
    const end = addDays(start, chunkDays - 1);
    chunks.push({ from: start, to: end < to ? end : to });
  }
  return chunks;
}

/** The earliest day a backfill may start for a platform keeping `months` months of history. */
export function earliestBackfillDay(months: number, now: Date = new Date()): string {
  const date = new Date(dayMs(toDay(now.getTime())));
  date.setUTCMonth(date.getUTCMonth() - months);
  return toDay(date.getTime());
}

/** Minutes east of UTC of `timeZone` at the instant `at`. */
function offsetMinutes(timeZone: string, at: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    })
      .formatToParts(new Date(at))
      .map((part) => [part.type, Number(part.value)]),
  );
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  return Math.round((local - Math.floor(at / 60_000) * 60_000) / 60_000);
}

/** The instant a local wall-clock time of `day` (YYYY-MM-DD) happens in `timeZone`. */
export function instantOf(day: string, hhmm: string, timeZone: string): number {
  const [hours = 0, minutes = 0] = hhmm.split(':').map(Number);
  const wall = dayMs(day) + (hours * 60 + minutes) * 60_000;
  const first = wall - offsetMinutes(timeZone, wall) * 60_000;
  // Near a DST change the offset at the guess may differ from the offset at the answer.
  return wall - offsetMinutes(timeZone, first) * 60_000;
}

const EVERY_MS = { '15_minutes': 15 * 60_000, hourly: 3_600_000, '6_hours': 6 * 3_600_000 } as const;

/**
 * When a schedule next runs after `after`: on the quarter hour, the hour, every six hours from local
 * midnight, or daily at its local time, in the schedule's time zone.
 */
export function nextRunAt(schedule: Schedule, after: Date = new Date()): Date {
  const now = after.getTime();
  if (schedule.every === 'daily') {
    const today = toDay(now + offsetMinutes(schedule.timeZone, now) * 60_000);
    for (let days = 0; days < 3; days++) {
      const at = instantOf(addDays(today, days), schedule.at, schedule.timeZone);
      if (at > now) return new Date(at);
    }
  }
  const step = schedule.every === 'daily' ? EVERY_MS.hourly : EVERY_MS[schedule.every];
  const offset = offsetMinutes(schedule.timeZone, now) * 60_000;
  return new Date(Math.floor((now + offset) / step) * step + step - offset);
}

/** Whether `value` is a time zone Intl knows (an IANA name such as America/New_York, or UTC). */
export function isKnownTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || !value) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The calendar day (YYYY-MM-DD) of the instant `at` (now by default) in `timeZone`; UTC's for a zone Intl does not know. */
export function dayIn(timeZone: string, at: number | Date = Date.now()): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
  } catch {
    return toDay(typeof at === 'number' ? at : at.getTime());
  }
}

/**
 * The days a run covers as its history shows them, both ends included. A backfill's are the days asked
 * for. A scheduled or manual run reads a wider window (lookbackWindow: up to the latest "today" anywhere,
 * which is tomorrow for most of the day); shown, it is its lookback days ending on the day it started in
 * the organization's time zone — the days a marketer there has data for.
 */
export function runDays(run: { kind: string; from: string; to: string; startedAt: string }, timeZone: string): Window {
  const started = Date.parse(run.startedAt);
  if (run.kind === 'backfill' || Number.isNaN(started)) return { from: run.from, to: run.to };
  const local = dayIn(timeZone, started);
  const to = local < run.to ? local : run.to;
  const lookbackDays = daysInclusive(run.from, toDay(started - 12 * 3_600_000));
  const from = addDays(to, -(Math.max(lookbackDays, 1) - 1));
  return { from: from > run.from ? from : run.from, to };
}
