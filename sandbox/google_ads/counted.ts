/**
 * What the customer's conversion actions counted per conversion date: the one conversions-by-date query
 * the sandbox answers through searchStream (`SELECT segments.conversion_action, segments.date,
 * metrics.all_conversions_by_conversion_date FROM customer WHERE segments.date BETWEEN …`), from the
 * ledger as sandbox/google_ads/reporting.ts counts it.
 */
import type { ServerResponse } from 'node:http';
import { adsFailure, GOOGLE_CUSTOMERS } from '@/sandbox/google_ads/accounts';
import { camelCase, dateFilter, type QueryRefusal } from '@/sandbox/google_ads/gaql';
import { json } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** The one conversions-by-date query the sandbox answers (sandbox/reporting.ts): FROM customer, per action and day. */
const CONVERSIONS_BY_DATE_FIELDS = ['segments.conversion_action', 'segments.date', 'metrics.all_conversions_by_conversion_date'];

/** Parses `SELECT <those fields> FROM customer WHERE segments.date BETWEEN …`; a refusal as Google words it. */
function conversionsByDateQuery(text: string): { from: string; to: string } | QueryRefusal {
  const query = text.replace(/\s+/g, ' ').trim();
  const parts = /^SELECT (.+?) FROM (\S+) WHERE (.+)$/i.exec(query);
  if (!parts) return { queryError: 'EXPECTED_FILTERS_ON_DATE_RANGE', message: 'A finite date range must be specified.' };
  const fields = parts[1]!.split(',').map((field) => field.trim());
  const unknown = fields.filter((field) => !CONVERSIONS_BY_DATE_FIELDS.includes(field));
  if (unknown.length) return { queryError: 'UNRECOGNIZED_FIELD', message: `Unrecognized fields in the query: '${unknown.join("', '")}'.` };
  if (parts[2] !== 'customer')
    return {
      queryError: 'BAD_RESOURCE_TYPE_IN_FROM_CLAUSE',
      message: `The sandbox reads conversions by date FROM customer, not '${parts[2]}'.`,
    };
  const range = dateFilter(parts[3]!);
  return range ?? { queryError: 'EXPECTED_FILTERS_ON_DATE_RANGE', message: 'A finite date range must be specified.' };
}

/**
 * What the customer's conversion actions counted per conversion date (sandbox/reporting.ts: uploads
 * that matched no click or known customer are not attributed); one batch, rows with a zero left out.
 */
export function conversionsByDate(store: SandboxStore, res: ServerResponse, customerId: string, text: string) {
  const range = conversionsByDateQuery(text);
  if ('queryError' in range) return adsFailure(res, 400, 'INVALID_ARGUMENT', { queryError: range.queryError }, range.message);
  if (GOOGLE_CUSTOMERS[customerId]!.manager)
    return adsFailure(
      res,
      400,
      'INVALID_ARGUMENT',
      { queryError: 'REQUESTED_METRICS_FOR_MANAGER' },
      'Metrics cannot be requested for a manager account.',
    );
  const results: Json[] = [];
  // segments.date is the customer's day, in its time zone.
  for (const [action, days] of store.reporting.googleActions(customerId, GOOGLE_CUSTOMERS[customerId]!.timeZone)) {
    for (const [date, count] of days) {
      if (date < range.from || date > range.to) continue;
      results.push({
        segments: { conversionAction: `customers/${customerId}/conversionActions/${action}`, date },
        metrics: { allConversionsByConversionDate: count },
      });
    }
  }
  const fieldMask = CONVERSIONS_BY_DATE_FIELDS.map((field) => field.split('.').map(camelCase).join('.')).join(',');
  return json(res, 200, [{ ...(results.length ? { results } : {}), fieldMask, requestId: token('') }]);
}
