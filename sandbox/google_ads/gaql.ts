/**
 * What the sandbox's GAQL readers share (sandbox/google_ads/report.ts, counted.ts): the one condition it
 * filters on, `segments.date BETWEEN`, checked as Google checks it, a refusal as Google words it, and
 * REST's camelCase field names.
 */

/** A refused query: Google's QueryError and its message. */
export interface QueryRefusal {
  queryError: string;
  message: string;
}

/** A date filter's days, inclusive; null without a filter. */
export type DateRange = { from: string; to: string } | null;

const isCalendarDay = (value: string) =>
  !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;

/** A date filter: `segments.date BETWEEN 'YYYY-MM-DD' AND 'YYYY-MM-DD'`, the only condition the sandbox filters on. */
export function dateFilter(where: string): DateRange | QueryRefusal {
  const between = /^segments\.date BETWEEN (\S+) AND (\S+)$/i.exec(where);
  if (!between) {
    if (/^segments\.date BETWEEN /i.test(where))
      return { queryError: 'EXPECTED_AND', message: 'Expected AND between values with BETWEEN operator.' };
    return {
      queryError: 'QUERY_ERROR',
      message: `The sandbox filters only on segments.date BETWEEN 'YYYY-MM-DD' AND 'YYYY-MM-DD', not: ${where.slice(0, 80)}`,
    };
  }
  const [from, to] = [between[1]!, between[2]!].map((value) => /^'(.*)'$/.exec(value)?.[1] ?? null);
  if (from == null || to == null) return { queryError: 'INVALID_STRING_VALUE', message: 'Values of segments.date must be quoted strings.' };
  for (const day of [from, to]) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
      return { queryError: 'INVALID_DATE_FORMAT', message: `Invalid date format: '${day}'. Expected 'YYYY-MM-DD'.` };
    if (!isCalendarDay(day))
      return {
        queryError: 'INVALID_VALUE_WITH_BETWEEN_OPERATOR',
        message: `'${day}' passed to the BETWEEN operator does not parse as a date.`,
      };
  }
  if (from > to) return { queryError: 'DATE_RANGE_TOO_NARROW', message: `The start date '${from}' is after the end date '${to}'.` };
  return { from, to };
}

/** A GAQL name as REST JSON writes it (`cost_micros` → `costMicros`). */
export const camelCase = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
