/**
 * What Microsoft's reports count of the offline conversions it received (its part of
 * sandbox/reporting.ts): it silently drops a share of those it accepted (`dropShare`, 0 by default)
 * and records the rest `lagHours` after upload (3 by default); its reports date by the account's day.
 */
import { dayIn } from '@/lib/shared/connections/windows';
import type { ConversionLedger } from '@/sandbox/conversions';
import { countByDay, droppedAt, switchField, type ReportsClock } from '@/sandbox/counted';

export interface MicrosoftSwitches {
  dropShare: number;
  lagHours: number;
}

export const MICROSOFT_REPORTING = {
  defaults: { dropShare: 0, lagHours: 3 } as MicrosoftSwitches,
  /** Its section of the switches' form. */
  form: (switches: MicrosoftSwitches) =>
    `<h2>Microsoft</h2>${switchField('microsoft.dropShare', 'Share of accepted offline conversions silently dropped (0–1)', switches.dropShare, '0.01')}${switchField('microsoft.lagHours', 'Hours after upload until a conversion is recorded', switches.lagHours, '0.1')}`,
  counts: (ledger: ConversionLedger, switches: () => MicrosoftSwitches, clock: ReportsClock) => ({
    /**
     * Microsoft's conversions per goal name and day of one account, as its reports show them at `now`: days
     * of the account's time zone (IANA), as Microsoft's reports date them.
     */
    microsoftGoals(accountId: string, timeZone: string, now = clock.now()) {
      const { dropShare, lagHours } = switches();
      const entries = ledger.list('microsoft').filter((entry) => entry.key.startsWith(`${accountId}|`));
      return countByDay(
        entries,
        (entry, index) => !droppedAt(index, dropShare) && entry.receivedAt + lagHours * 3_600_000 <= now,
        (at) => dayIn(timeZone, at),
      );
    },
  }),
};
