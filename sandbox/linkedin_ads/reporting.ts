/**
 * What LinkedIn's adAnalytics pivoted by CONVERSION counts of the events it received (its part of
 * sandbox/reporting.ts): only events it could tie to a member (a known hashed email or an li_fat_id) are
 * attributed; of those it silently drops a share (`dropShare`, 0 by default) and shows the rest `lagHours`
 * after upload (3 by default), dated by the UTC day as adAnalytics dates.
 */
import type { ConversionLedger } from '@/sandbox/conversions';
import { countByDay, droppedAt, switchField, type ReportsClock } from '@/sandbox/counted';

export interface LinkedInSwitches {
  dropShare: number;
  lagHours: number;
}

export const LINKEDIN_REPORTING = {
  defaults: { dropShare: 0, lagHours: 3 } as LinkedInSwitches,
  form: (switches: LinkedInSwitches) =>
    `<h2>LinkedIn</h2>${switchField('linkedin.dropShare', 'Share of attributable conversions silently dropped (0–1)', switches.dropShare, '0.01')}${switchField('linkedin.lagHours', 'Hours after upload until a conversion is reported', switches.lagHours, '0.1')}`,
  counts: (ledger: ConversionLedger, switches: () => LinkedInSwitches, clock: ReportsClock) => ({
    /** LinkedIn's attributed conversions per rule id and UTC day of one account, as adAnalytics shows them at `now`. */
    linkedinRules(accountId: string, now = clock.now()) {
      const { dropShare, lagHours } = switches();
      const entries = ledger.list('linkedin').filter((entry) => entry.key.startsWith(`${accountId}|`) && entry.attributable);
      return countByDay(
        entries,
        (entry, index) => !droppedAt(index, dropShare) && entry.receivedAt + lagHours * 3_600_000 <= now,
        (at) => new Date(at).toISOString().slice(0, 10),
      );
    },
  }),
};
