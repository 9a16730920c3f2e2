/**
 * What the sandbox's ad platforms report back about the conversions they received (docs/SANDBOX.md,
 * "Counted by the platform"): each conversion of the ledger is dated by the UTC day it arrived, and each
 * platform has switchable, deterministic imperfections, as the real ones have:
 * - Microsoft silently drops a share of the offline conversions it accepted (`dropShare`, 0 by default)
 *   and records the rest `lagHours` after upload (3 by default);
 * - Google attributes an upload only when it matched a click or a known customer (always on: an
 *   unmatched upload is received but never attributed);
 * - Meta's pixel stats count what arrived at once; its insights attribute them `attributionLagHours`
 *   later (12 by default), and `missingShare` of what was accepted never reaches the pixel's stats.
 */
import type { ConversionLedger, ReceivedConversion } from '@/sandbox/conversions';

export interface ReportingSwitches {
  microsoft: { dropShare: number; lagHours: number };
  google: { unmatchedUnattributed: boolean };
  meta: { attributionLagHours: number; missingShare: number };
}

export const DEFAULT_SWITCHES: ReportingSwitches = {
  microsoft: { dropShare: 0, lagHours: 3 },
  google: { unmatchedUnattributed: true },
  meta: { attributionLagHours: 12, missingShare: 0 },
};

export type SandboxReporting = ReturnType<typeof createReporting>;

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * Whether the i-th entry (0-based, in arrival order) is dropped at `share`: spread evenly and the same on
 * every reading (at 20 %, the 5th and 10th of every ten).
 */
export const droppedAt = (index: number, share: number) => share > 0 && Math.floor((index + 1) * share) > Math.floor(index * share);

export function createReporting(ledger: ConversionLedger) {
  let switches: ReportingSwitches = structuredClone(DEFAULT_SWITCHES);

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
  ): Map<string, Map<string, number>> {
    const counts = new Map<string, Map<string, number>>();
    const seen = new Map<string, number>();
    for (const entry of entries) {
      const index = seen.get(entry.target) ?? 0;
      seen.set(entry.target, index + 1);
      if (!keep(entry, index)) continue;
      const days = counts.get(entry.target) ?? new Map<string, number>();
      days.set(dayOf(entry.receivedAt), (days.get(dayOf(entry.receivedAt)) ?? 0) + 1);
      counts.set(entry.target, days);
    }
    return counts;
  }

  /** Microsoft's conversions per goal name and day of one account, as its reports show them at `now`. */
  function microsoftGoals(accountId: string, now = Date.now()) {
    const { dropShare, lagHours } = switches.microsoft;
    const entries = ledger.list('microsoft').filter((entry) => entry.key.startsWith(`${accountId}|`));
    return countByDay(entries, (entry, index) => !droppedAt(index, dropShare) && entry.receivedAt + lagHours * 3_600_000 <= now);
  }

  /** Google's conversions per conversion action and day of one customer: only those matched to a click or person. */
  function googleActions(customerId: string) {
    const entries = ledger.list('google').filter((entry) => entry.key.startsWith(`${customerId}/`));
    return countByDay(entries, (entry) => !switches.google.unmatchedUnattributed || entry.attributable !== false);
  }

  /** The pixel's events that reached its stats, each with its event name and arrival time. */
  function metaReceived(pixelId: string): ReceivedConversion[] {
    const entries = ledger.list('meta').filter((entry) => entry.target === pixelId);
    return entries.filter((_entry, index) => !droppedAt(index, switches.meta.missingShare));
  }

  /** Meta's attributed events per event name and day of some pixels, as its insights show them at `now`. */
  function metaAttributed(pixelIds: readonly string[], now = Date.now()) {
    const lag = switches.meta.attributionLagHours * 3_600_000;
    const counts = new Map<string, Map<string, number>>();
    for (const pixelId of pixelIds) {
      for (const entry of metaReceived(pixelId)) {
        if (entry.receivedAt + lag > now) continue;
        const name = String(entry.event.event_name ?? '');
        const days = counts.get(name) ?? new Map<string, number>();
        days.set(dayOf(entry.receivedAt), (days.get(dayOf(entry.receivedAt)) ?? 0) + 1);
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
    reset: () => {
      switches = structuredClone(DEFAULT_SWITCHES);
    },
    microsoftGoals,
    googleActions,
    metaReceived,
    metaAttributed,
  };
}
