/**
 * What the sandbox's ad platforms report back about the conversions they received (docs/SANDBOX.md,
 * "Counted by the platform"): each conversion of the ledger is dated by the day it arrived in its account's
 * time zone (Microsoft's reports, Google's segments.date and Meta's insights all date by the account's day;
 * Meta's pixel stats are hourly, in unix time), and each platform has switchable,
 * deterministic imperfections, as the real ones have:
 * - Microsoft silently drops a share of the offline conversions it accepted (`dropShare`, 0 by default)
 *   and records the rest `lagHours` after upload (3 by default);
 * - Google attributes an upload only when it matched a click or a known customer (always on: an
 *   unmatched upload is received but never attributed);
 * - Meta's pixel stats count what arrived at once; its insights attribute them `attributionLagHours`
 *   later (12 by default), and `missingShare` of what was accepted never reaches the pixel's stats.
 *   The site's own browser pixel fires `browserFires` times per event we sent (0 by default): Meta's
 *   stats count those beside our Conversions API events unless asked for `event_source=SERVER_ONLY`.
 */
import { dayIn } from '@/lib/shared/connections/windows';
import type { ConversionLedger, ReceivedConversion } from '@/sandbox/conversions';

export interface ReportingSwitches {
  microsoft: { dropShare: number; lagHours: number };
  google: { unmatchedUnattributed: boolean };
  meta: { attributionLagHours: number; missingShare: number; browserFires: number };
}

export const DEFAULT_SWITCHES: ReportingSwitches = {
  microsoft: { dropShare: 0, lagHours: 3 },
  google: { unmatchedUnattributed: true },
  meta: { attributionLagHours: 12, missingShare: 0, browserFires: 0 },
};

export type SandboxReporting = ReturnType<typeof createReporting>;

/**
 * Whether the i-th entry (0-based, in arrival order) is dropped at `share`: spread evenly and the same on
 * every reading (at 20 %, the 5th and 10th of every ten).
 */
export const droppedAt = (index: number, share: number) => share > 0 && Math.floor((index + 1) * share) > Math.floor(index * share);

/**
 * The reports' "now" (which day is the account's today, whether the lag has passed): the wall clock
 * unless a test sets it (`platforms.reporting.clock.set`, or `POST /__sandbox/clock` with `{ "at": ISO
 * or null }`), so a test can stand on either side of a midnight instead of skipping itself.
 */
function createClock() {
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

export function createReporting(ledger: ConversionLedger) {
  let switches: ReportingSwitches = structuredClone(DEFAULT_SWITCHES);
  const clock = createClock();

  function set(changes: { [P in keyof ReportingSwitches]?: Partial<ReportingSwitches[P]> }) {
    switches = {
      microsoft: { ...switches.microsoft, ...changes.microsoft },
      google: { ...switches.google, ...changes.google },
      meta: { ...switches.meta, ...changes.meta },
    };
    return switches;
  }

  /** Counts per target and day of the entries `keep` keeps (given each entry's index within its target). */
  function countByDay(
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

  /**
   * Microsoft's conversions per goal name and day of one account, as its reports show them at `now`: days
   * of the account's time zone (IANA), as Microsoft's reports date them.
   */
  function microsoftGoals(accountId: string, timeZone: string, now = clock.now()) {
    const { dropShare, lagHours } = switches.microsoft;
    const entries = ledger.list('microsoft').filter((entry) => entry.key.startsWith(`${accountId}|`));
    return countByDay(
      entries,
      (entry, index) => !droppedAt(index, dropShare) && entry.receivedAt + lagHours * 3_600_000 <= now,
      (at) => dayIn(timeZone, at),
    );
  }

  /**
   * Google's conversions per conversion action and day of one customer, days of its time zone (IANA), as
   * `segments.date` is: only those matched to a click or person, and arrived by the reports' `now`.
   */
  function googleActions(customerId: string, timeZone: string, now = clock.now()) {
    const entries = ledger.list('google').filter((entry) => entry.key.startsWith(`${customerId}/`));
    return countByDay(
      entries,
      (entry) => entry.receivedAt <= now && (!switches.google.unmatchedUnattributed || entry.attributable !== false),
      (at) => dayIn(timeZone, at),
    );
  }

  /** The pixel's events that reached its stats, each with its event name and arrival time. */
  function metaReceived(pixelId: string): ReceivedConversion[] {
    const entries = ledger.list('meta').filter((entry) => entry.target === pixelId);
    return entries.filter((_entry, index) => !droppedAt(index, switches.meta.missingShare));
  }

  /**
   * The browser-pixel fires beside our events: the site's pixel fires for the same purchase in the same
   * moment, `browserFires` times per event we sent, spread evenly (at 0.5, every second event); a fire
   * is the browser's, so it is there even when our server event never reached the stats.
   */
  function metaBrowserFires(pixelId: string): Array<{ eventName: string; receivedAt: number }> {
    const rate = switches.meta.browserFires;
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
    const lag = switches.meta.attributionLagHours * 3_600_000;
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

  return {
    get switches() {
      return switches;
    },
    set,
    clock,
    reset: () => {
      switches = structuredClone(DEFAULT_SWITCHES);
      clock.set(null);
    },
    microsoftGoals,
    googleActions,
    metaReceived,
    metaBrowserFires,
    metaAttributed,
  };
}
