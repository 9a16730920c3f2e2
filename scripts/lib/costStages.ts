/**
 * The cost section's arithmetic (scripts/lib/benchCost.ts): what the traced processes counted
 * (lib/server/costTrace.ts), split by stage of the pipeline, scaled, and multiplied by the list prices of
 * docs/cost.md.
 */
import type { CostTotals, Stored, Tally, Traffic } from '@/lib/server/costTrace';
import { RETENTION_MS } from '@/lib/server/repos/conversions';

/**
 * List prices (USD) as docs/cost.md cites them: Firestore in a multi-region location (nam5), per 100,000 documents
 * and per GiB-month stored; Pub/Sub per TiB of throughput (published + delivered), 1,000 bytes a request at least
 * (costTrace.ts counts that).
 */
export const PRICES = {
  readsPer100k: 0.06,
  writesPer100k: 0.18,
  deletesPer100k: 0.02,
  storedPerGiBMonth: 0.18,
  pubsubPerTiB: 40,
};

export const COST_STAGES = ['ingest', 'delivery', 'delivery log', 'payload chunks', 'counters', 'sync', 'pollers'] as const;
export type Stage = (typeof COST_STAGES)[number];

/** What one stretch of a run counted, by process, and for how many events. */
export interface Measured {
  label: string;
  events: number;
  arrived: number;
  seconds: number;
  byProcess: Map<string, CostTotals>;
  workerPid: string;
  /** A backfill: everything but the pollers is the sync stage's. */
  backfill?: boolean;
}

/** Modules whose reads and writes are the worker's pollers (payments, warehouse reads, counted, dead letters): per hour, not per event. */
const POLLERS = /^(repos\/(reads|payments|reconciliation|deadLetters)|delivery\/(payments|warehouse)|counted\/|queue\/deadLetters)/;
const SYNC = /^(repos\/(ledger|runSettlement|connections|sessions|days|chartDays)|sync\/|services\/connections)/;

/** The stage a document path (a pattern) read or written by `caller` in the worker or not belongs to. */
export function stageOfDocument(pattern: string, caller: string, inWorker: boolean, backfill = false): Stage {
  if (backfill) return POLLERS.test(caller) ? 'pollers' : 'sync';
  if (/\/payloads(\/|$| )/.test(pattern)) return 'payload chunks';
  if (/\/(deliveries|filtered)(\/\*)?($| )/.test(pattern)) return 'delivery log';
  if (/\/(hours|counter_writes)(\/|$| )/.test(pattern) || caller === 'repos/deliveryCounters' || /^(alerts\/|repos\/alerts)/.test(caller))
    return 'counters';
  if (/^rate_limits/.test(pattern)) return 'ingest';
  if (POLLERS.test(caller)) return 'pollers';
  if (SYNC.test(caller) || /\/(runs|days)(\/|$| )/.test(pattern)) return 'sync';
  return inWorker ? 'delivery' : 'ingest';
}

function stageOfTopic(name: string, inWorker: boolean, published: boolean): Stage {
  if (/dead/.test(name)) return 'pollers';
  if (name.startsWith('sync')) return 'sync';
  return published && !inWorker ? 'ingest' : 'delivery';
}

/** How long a document of this collection is kept (its TTL), in days; null: as long as what it describes. */
export function keptDays(pattern: string): number | null {
  const group = pattern.split(' ')[0]!.split('/').at(-2) ?? '';
  const retention = RETENTION_MS / 86_400_000;
  const days: Record<string, number> = {
    deliveries: retention,
    payloads: retention,
    hours: retention,
    filtered: retention,
    counter_writes: 1,
  };
  if (group in days) return days[group]!;
  // Expire at the end of their minute or hour; Firestore's TTL deletes within about a day of that.
  if (/^(rate_limits|rate_limit_instances|oauth_states|notifications|reconciliation)$/.test(group)) return 1;
  return null;
}

const subtract = <T extends object>(after: Record<string, T>, before: Record<string, T> | undefined): Record<string, T> =>
  Object.fromEntries(
    Object.entries(after).map(([key, value]) => [
      key,
      Object.fromEntries(
        Object.entries(value).map(([field, count]) => [
          field,
          (count as number) - ((before?.[key] as Record<string, number> | undefined)?.[field] ?? 0),
        ]),
      ) as T,
    ]),
  );

export function diffTotals(after: CostTotals, before: CostTotals | undefined): CostTotals {
  return {
    firestore: subtract<Tally>(after.firestore, before?.firestore),
    stored: subtract<Stored>(after.stored, before?.stored),
    publish: subtract<Traffic>(after.publish, before?.publish),
    pull: subtract<Traffic>(after.pull, before?.pull),
  };
}

/** The columns of a stage's row, in this order. */
export const COLUMNS = [
  'document reads',
  'document writes',
  'deletes now',
  'TTL deletes to come',
  'stored MiB (docs + index est.)',
  'GiB-months stored',
  'Pub/Sub messages published',
  'published MiB billed',
  'Pub/Sub messages delivered',
  'delivered MiB billed',
] as const;

export interface StageRow {
  stage: Stage;
  values: number[];
}

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** Each stage's counts, scaled to a million events (or as counted: `absolute`). Documents of unknown lifetime count a month. */
export function stageRows(run: Measured, absolute = false): StageRow[] {
  const scale = absolute ? 1 : 1_000_000 / run.events;
  const rows = new Map<Stage, number[]>(COST_STAGES.map((stage) => [stage, COLUMNS.map(() => 0)]));
  const add = (stage: Stage, column: number, count: number) => (rows.get(stage)![column]! += count * scale);
  for (const [pid, totals] of run.byProcess) {
    const inWorker = pid === run.workerPid;
    for (const [key, tally] of Object.entries(totals.firestore)) {
      const [pattern, caller] = key.split('\t') as [string, string];
      const stage = stageOfDocument(pattern, caller, inWorker, run.backfill);
      add(stage, 0, tally.reads + tally.missing);
      add(stage, 1, tally.writes);
      add(stage, 2, tally.deletes);
    }
    for (const [pattern, stored] of Object.entries(totals.stored)) {
      const stage = stageOfDocument(pattern, '', inWorker, run.backfill);
      const days = keptDays(pattern);
      if (days !== null) add(stage, 3, stored.docs);
      add(stage, 4, (stored.bytes + stored.indexBytes) / MiB);
      add(stage, 5, ((stored.bytes + stored.indexBytes) / GiB) * ((days ?? 30.4) / 30.4));
    }
    for (const [topic, traffic] of Object.entries(totals.publish)) {
      const stage = stageOfTopic(topic, inWorker, true);
      add(stage, 6, traffic.messages);
      add(stage, 7, traffic.billable / MiB);
    }
    for (const [subscription, traffic] of Object.entries(totals.pull)) {
      const stage = stageOfTopic(subscription, inWorker, false);
      add(stage, 8, traffic.messages);
      add(stage, 9, traffic.billable / MiB);
    }
  }
  return [...rows].map(([stage, values]) => ({ stage, values }));
}

/** A row's cost by line: Firestore operations, storage, Pub/Sub. */
export function dollars(values: number[]) {
  const [reads, writes, deletes, ttl, , gibMonths, , published, , delivered] = values as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const operations = (reads * PRICES.readsPer100k + writes * PRICES.writesPer100k + (deletes + ttl) * PRICES.deletesPer100k) / 100_000;
  const storage = gibMonths * PRICES.storedPerGiBMonth;
  const pubsub = (((published + delivered) * MiB) / 2 ** 40) * PRICES.pubsubPerTiB;
  return { operations, storage, pubsub, total: operations + storage + pubsub };
}

const number = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n === 0 ? 0 : 2));
const usd = (n: number) => `$${n.toFixed(n >= 1 ? 2 : 4)}`;

export function costTable(rows: StageRow[], per: string): string {
  const sum = COLUMNS.map((_, column) => rows.reduce((total, row) => total + row.values[column]!, 0));
  const line = (name: string, values: number[]) => {
    const cost = dollars(values);
    return `| ${name} | ${values.map(number).join(' | ')} | ${usd(cost.operations)} | ${usd(cost.storage)} | ${usd(cost.pubsub)} | ${usd(cost.total)} |`;
  };
  return [
    `| stage (${per}) | ${COLUMNS.join(' | ')} | $ Firestore operations | $ storage | $ Pub/Sub | $ total |`,
    `|---|${COLUMNS.map(() => '---:').join('|')}|---:|---:|---:|---:|`,
    ...rows.filter((row) => row.values.some((value) => value !== 0)).map((row) => line(row.stage, row.values)),
    line('**all**', sum),
  ].join('\n');
}

/** One sentence: the total, its lines, and what dominates (the pollers, which run by the hour, stand apart). */
export function costOf(rows: StageRow[], per: string): string {
  const perEvent = rows.filter((row) => row.stage !== 'pollers');
  const costs = perEvent.map((row) => ({ stage: row.stage, ...dollars(row.values) }));
  const total = costs.reduce((sum, cost) => sum + cost.total, 0);
  const lines = costs.flatMap((cost) =>
    (['operations', 'storage', 'pubsub'] as const).map((line) => ({
      what: `${cost.stage}: ${line === 'pubsub' ? 'Pub/Sub' : `Firestore ${line}`}`,
      usd: cost[line],
    })),
  );
  const top = lines.sort((a, b) => b.usd - a.usd).slice(0, 3);
  const pollers = rows.find((row) => row.stage === 'pollers');
  return (
    `Total ${per} (the pollers aside): ${usd(total)}. Largest lines: ${top.map((line) => `${line.what} ${usd(line.usd)} (${((line.usd / total) * 100).toFixed(0)} %)`).join(', ')}.` +
    (pollers && pollers.values.some(Boolean)
      ? ` The worker's pollers meanwhile (by the hour, not by event): ${usd(dollars(pollers.values).total)}.`
      : '')
  );
}

/** The document paths and queries behind the figures, the costliest first (scaled as stageRows). */
export function perMillion(run: Measured, absolute = false): string {
  const scale = absolute ? 1 : 1_000_000 / run.events;
  const lines = new Map<string, { stage: Stage; values: number[]; index: number }>();
  for (const [pid, totals] of run.byProcess) {
    const inWorker = pid === run.workerPid;
    const entry = (pattern: string, caller: string) => {
      const key = `${pattern} ← ${caller || '—'} (${inWorker ? 'worker' : 'ingest process'})`;
      return (
        lines.get(key) ??
        lines
          .set(key, { stage: stageOfDocument(pattern, caller, inWorker, run.backfill), values: COLUMNS.map(() => 0), index: 0 })
          .get(key)!
      );
    };
    for (const [key, tally] of Object.entries(totals.firestore)) {
      const [pattern, caller] = key.split('\t') as [string, string];
      const values = entry(pattern, caller).values;
      values[0]! += (tally.reads + tally.missing) * scale;
      values[1]! += tally.writes * scale;
      values[2]! += tally.deletes * scale;
    }
    for (const [pattern, stored] of Object.entries(totals.stored)) {
      const line = entry(pattern, '');
      const values = line.values;
      line.index += (stored.indexBytes / MiB) * scale;
      const days = keptDays(pattern);
      if (days !== null) values[3]! += stored.docs * scale;
      values[4]! += ((stored.bytes + stored.indexBytes) / MiB) * scale;
      values[5]! += ((stored.bytes + stored.indexBytes) / GiB) * ((days ?? 30.4) / 30.4) * scale;
    }
  }
  return [...lines]
    .map(([key, { stage, values, index }]) => ({ key, stage, values, index, cost: dollars(values).total }))
    .filter((line) => line.values.some((value) => Math.abs(value) > 0.004))
    .sort((a, b) => b.cost - a.cost)
    .slice(0, 30)
    .map(
      (line) =>
        `  ${line.stage}: ${line.key}: reads ${number(line.values[0]!)}, writes ${number(line.values[1]!)}, deletes ${number(line.values[2]!)}, TTL deletes ${number(line.values[3]!)}, ` +
        `stored ${number(line.values[4]!)} MiB (of it index entries ${number(line.index)} MiB) → ${usd(line.cost)}`,
    )
    .join('\n');
}
