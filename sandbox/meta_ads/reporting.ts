/**
 * What Meta counts of the Conversions API events it received (its part of sandbox/reporting.ts): its
 * pixel stats count what arrived at once (hourly, in unix time); its insights attribute them
 * `attributionLagHours` later (12 by default), dated by the ad account's day, and `missingShare` of
 * what was accepted never reaches the pixel's stats. The site's own browser pixel fires `browserFires`
 * times per event we sent (0 by default): Meta's stats count those beside our Conversions API events
 * unless asked for `event_source=SERVER_ONLY`.
 */
import { dayIn } from '@/lib/shared/connections/windows';
import type { ConversionLedger, ReceivedConversion } from '@/sandbox/conversions';
import { droppedAt, switchField, type ReportsClock } from '@/sandbox/counted';

export interface MetaSwitches {
  attributionLagHours: number;
  missingShare: number;
  browserFires: number;
}

export const META_REPORTING = {
  defaults: { attributionLagHours: 12, missingShare: 0, browserFires: 0 } as MetaSwitches,
  /** Its section of the switches' form. */
  form: (switches: MetaSwitches) =>
    `<h2>Meta</h2>${switchField('meta.attributionLagHours', 'Hours until insights attribute a received event', switches.attributionLagHours, '0.1')}${switchField('meta.missingShare', 'Share of accepted events that never reach the pixel stats (0–1)', switches.missingShare, '0.01')}${switchField('meta.browserFires', "Browser-pixel fires per event we sent (the site's own pixel)", switches.browserFires, '0.1')}`,
  counts: (ledger: ConversionLedger, switches: () => MetaSwitches, clock: ReportsClock) => {
    /** The pixel's events that reached its stats, each with its event name and arrival time. */
    function metaReceived(pixelId: string): ReceivedConversion[] {
      const entries = ledger.list('meta').filter((entry) => entry.target === pixelId);
      return entries.filter((_entry, index) => !droppedAt(index, switches().missingShare));
    }

    /**
     * The browser-pixel fires beside our events: the site's pixel fires for the same purchase in the same
     * moment, `browserFires` times per event we sent, spread evenly (at 0.5, every second event); a fire
     * is the browser's, so it is there even when our server event never reached the stats.
     */
    function metaBrowserFires(pixelId: string): Array<{ eventName: string; receivedAt: number }> {
      const rate = switches().browserFires;
      const entries = ledger.list('meta').filter((entry) => entry.target === pixelId);
      return entries.flatMap((entry, index) => {
        const fires = rate > 0 ? Math.floor((index + 1) * rate) - Math.floor(index * rate) : 0;
        const eventName = String(entry.event.event_name ?? '');
        return Array.from({ length: fires }, () => ({ eventName, receivedAt: entry.receivedAt }));
      });
    }

    /**
     * Meta's attributed events per event name and day of some pixels of one ad account, as its insights show
     * them at `now`: days of the account's time zone (IANA, its `timezone_name`).
     */
    function metaAttributed(pixelIds: readonly string[], timeZone: string, now = clock.now()) {
      const lag = switches().attributionLagHours * 3_600_000;
      const counts = new Map<string, Map<string, number>>();
      for (const pixelId of pixelIds) {
        for (const entry of metaReceived(pixelId)) {
          if (entry.receivedAt + lag > now) continue;
          const name = String(entry.event.event_name ?? '');
          const days = counts.get(name) ?? new Map<string, number>();
          const date = dayIn(timeZone, entry.receivedAt);
          days.set(date, (days.get(date) ?? 0) + 1);
          counts.set(name, days);
        }
      }
      return counts;
    }

    return { metaReceived, metaBrowserFires, metaAttributed };
  },
};
