/**
 * What TikTok's integrated report counts of the events it received (its part of sandbox/reporting.ts): the
 * page-event metrics (`complete_payment` …) at data level AUCTION_ADVERTISER count, per event name, the events it
 * could attribute to an ad (an event with a ttclid, or a hashed email or phone of a known person), of every pixel
 * of the advertiser together; of those it silently drops a share (`dropShare`, 0 by default) and shows the rest
 * `lagHours` after arrival (3 by default), dated by the advertiser's day in its time zone. Test events never count.
 */
import { dayIn } from '@/lib/shared/connections/windows';
import type { ConversionLedger } from '@/sandbox/conversions';
import { droppedAt, switchField, type ReportsClock } from '@/sandbox/counted';

export interface TikTokSwitches {
  dropShare: number;
  lagHours: number;
}

export const TIKTOK_REPORTING = {
  defaults: { dropShare: 0, lagHours: 3 } as TikTokSwitches,
  form: (switches: TikTokSwitches) =>
    `<h2>TikTok</h2>${switchField('tiktok.dropShare', 'Share of attributable events silently dropped (0–1)', switches.dropShare, '0.01')}${switchField('tiktok.lagHours', 'Hours after arrival until an event is reported', switches.lagHours, '0.1')}`,
  counts: (ledger: ConversionLedger, switches: () => TikTokSwitches, clock: ReportsClock) => ({
    /**
     * TikTok's attributed events per event name and day (of `timeZone`, the advertiser's) of one advertiser's
     * pixels (their codes), as its report shows them at `now`.
     */
    tiktokAttributed(pixelCodes: readonly string[], timeZone: string, now = clock.now()) {
      const { dropShare, lagHours } = switches();
      const counts = new Map<string, Map<string, number>>();
      const entries = ledger.list('tiktok').filter((entry) => entry.attributable && pixelCodes.includes(entry.target));
      for (const [index, entry] of entries.entries()) {
        if (droppedAt(index, dropShare) || entry.receivedAt + lagHours * 3_600_000 > now) continue;
        const name = String(entry.event.event ?? '');
        const days = counts.get(name) ?? new Map<string, number>();
        const date = dayIn(timeZone, entry.receivedAt);
        days.set(date, (days.get(date) ?? 0) + 1);
        counts.set(name, days);
      }
      return counts;
    },
  }),
};
