/**
 * What Google's conversions by conversion date count of the uploads it received (its part of
 * sandbox/reporting.ts): it attributes an upload only when it matched a click or a known customer
 * (always on: an unmatched upload is received but never attributed); `segments.date` is the customer's day.
 */
import { dayIn } from '@/lib/shared/connections/windows';
import type { ConversionLedger } from '@/sandbox/conversions';
import { countByDay, type ReportsClock } from '@/sandbox/counted';

export interface GoogleSwitches {
  unmatchedUnattributed: boolean;
}

export const GOOGLE_REPORTING = {
  defaults: { unmatchedUnattributed: true } as GoogleSwitches,
  /** Its section of the switches' form (a checkbox sends its value before the hidden "false" beside it). */
  form: (switches: GoogleSwitches) =>
    `<h2>Google</h2><label><input type="checkbox" name="google.unmatchedUnattributed" value="true" ${switches.unmatchedUnattributed ? 'checked' : ''}> Leave uploads that matched no click or customer unattributed</label><input type="hidden" name="google.unmatchedUnattributed" value="false">`,
  counts: (ledger: ConversionLedger, switches: () => GoogleSwitches, clock: ReportsClock) => ({
    /**
     * Google's conversions per conversion action and day of one customer, days of its time zone (IANA), as
     * `segments.date` is: only those matched to a click or person, and arrived by the reports' `now`.
     */
    googleActions(customerId: string, timeZone: string, now = clock.now()) {
      const entries = ledger.list('google').filter((entry) => entry.key.startsWith(`${customerId}/`));
      return countByDay(
        entries,
        (entry) => entry.receivedAt <= now && (!switches().unmatchedUnattributed || entry.attributable !== false),
        (at) => dayIn(timeZone, at),
      );
    },
  }),
};
