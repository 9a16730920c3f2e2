import type { MixpanelSource } from '@/lib/shared/conversions/conversion';
import { exportEvents } from '@/lib/server/connectors/mixpanel/export';
import type { RowSource } from '@/lib/server/connectors/types';

/**
 * Mixpanel as a conversion source: chosen events of the project through its Export API (export.ts),
 * by day. Its cursor is the event's `time` (seconds); the export is not in cursor order across
 * batches, so the cursor is saved at the end of a read. What it reads is only known from its events
 * (their properties), so it has no `describe`.
 */

/** How far back a first read and a preview go. */
const FIRST_READ_DAYS = 7;
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** An exported event as a row: its properties, and its name as `event`. */
const rowOf = (exported: { event: string; properties: Record<string, unknown> }): Record<string, unknown> => ({
  ...exported.properties,
  event: exported.event,
});

export const mixpanelRowSource: RowSource<MixpanelSource> = {
  ordered: false,
  bills: false,
  compare: (left, right) => Number(left) - Number(right),
  async preview(session, source, limit) {
    const now = Date.now();
    const rows: Array<Record<string, unknown>> = [];
    for await (const batch of exportEvents(session, {
      fromDate: dayOf(now - FIRST_READ_DAYS * DAY_MS),
      toDate: dayOf(now),
      events: source.events,
      batchSize: limit,
    })) {
      rows.push(...batch.map(rowOf));
      if (rows.length >= limit) break;
    }
    return rows.slice(0, limit);
  },
  async *read(session, source, from) {
    const fromMs = from !== null ? Number(from) * 1000 : Date.now() - FIRST_READ_DAYS * DAY_MS;
    // Export is by day (the project's days): the day before the cursor's covers any time zone.
    const batches = exportEvents(session, { fromDate: dayOf(fromMs - DAY_MS), toDate: dayOf(Date.now()), events: source.events });
    for await (const batch of batches) {
      const rows = batch
        .map(rowOf)
        .filter((row) => from === null || Number(row.time) >= Number(from))
        .map((row) => ({ cursor: String(row.time), row }));
      yield { rows, bytesBilled: 0 };
    }
  },
  coverage: (source) => [source.destinationId, source.events],
};
