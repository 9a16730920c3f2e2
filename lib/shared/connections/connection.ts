import { PLAN_ENTITLEMENTS, type SyncFrequency } from '@/lib/shared/billing/entitlements';
import type { AdLevel } from '@/lib/shared/connections/rows';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';

/**
 * A connection: ad performance of some accounts of one source object, written on a schedule into one
 * destination (a BigQuery table or a Mixpanel project). The pages /{orgId}/createConnection,
 * /connection, /connection/{id}/configuration and /connection/{id}/test1 edit and watch it.
 */

export type ConnectionStatus = 'active' | 'paused' | 'needs_reauth' | 'failing';

export const CONNECTION_STATUS_LABELS: Record<ConnectionStatus, string> = {
  active: 'Active',
  paused: 'Paused',
  needs_reauth: 'Needs reconnecting',
  failing: 'Failing',
};

export const SCHEDULES = ['15_minutes', 'hourly', '6_hours', 'daily'] as const;
export type ScheduleEvery = (typeof SCHEDULES)[number];

export const SCHEDULE_LABELS: Record<ScheduleEvery, string> = {
  '15_minutes': 'Every 15 minutes',
  hourly: 'Every hour',
  '6_hours': 'Every 6 hours',
  daily: 'Daily',
};

/** The most frequent schedule each plan's sync frequency allows. */
const ALLOWED_BY_FREQUENCY: Record<SyncFrequency, readonly ScheduleEvery[]> = {
  daily: ['daily'],
  hourly: ['hourly', '6_hours', 'daily'],
  '15-minute': SCHEDULES,
};
export const schedulesAllowed = (frequency: SyncFrequency) => ALLOWED_BY_FREQUENCY[frequency];

export interface Schedule {
  every: ScheduleEvery;
  /** Daily runs: the time of day, HH:MM, in the organization's time zone. */
  at: string;
  timeZone: string;
}

export type DestinationPlatform = 'bigquery' | 'mixpanel';

export interface ConnectionSource {
  sourceId: string;
  platform: AdPlatform;
  accounts: Array<{ id: string; name: string }>;
}

export interface ConnectionDestination {
  destinationId: string;
  platform: DestinationPlatform;
  /** BigQuery project, or Mixpanel project id. */
  projectId: string;
  dataset: string | null;
  table: string | null;
}

export type RunKind = 'scheduled' | 'manual' | 'backfill';
export type RunOutcome = 'running' | 'succeeded' | 'partial' | 'failed' | 'needs_reauth' | 'cancelled';

export const RUN_OUTCOME_LABELS: Record<RunOutcome, string> = {
  running: 'Running',
  succeeded: 'Succeeded',
  partial: 'Some accounts failed',
  failed: 'Failed',
  needs_reauth: 'Paused: reconnect',
  cancelled: 'Cancelled',
};

export interface RunSummary {
  id: string;
  kind: RunKind;
  outcome: RunOutcome;
  at: string;
}

export interface Connection {
  id: string;
  name: string;
  source: ConnectionSource;
  destination: ConnectionDestination;
  level: AdLevel;
  schedule: Schedule;
  lookbackDays: number;
  status: ConnectionStatus;
  /** Why it needs reconnecting or is failing, in words. */
  statusReason: string | null;
  /** Set while the plan no longer includes it (paused until an upgrade or an edit): why, and the way out. */
  pausedByPlan?: string | null;
  nextRunAt: string | null;
  lastRun: RunSummary | null;
  /** The run in progress (scheduled or manual): no second one starts while it lasts. */
  runningRunId: string | null;
  /** The backfill in progress, if any. */
  backfillRunId: string | null;
  createdAt: string;
}

/** One account × window of a run: what a worker reads and writes as one job. */
export interface RunJob {
  key: string;
  accountId: string;
  from: string;
  to: string;
  status: 'pending' | 'done' | 'failed' | 'paused' | 'cancelled';
  rowsRead: number;
  rowsWritten: number;
  calls: number;
  durationMs: number;
  attempts: number;
  error: string | null;
}

export interface Run {
  id: string;
  kind: RunKind;
  outcome: RunOutcome;
  from: string;
  to: string;
  startedAt: string;
  finishedAt: string | null;
  jobsTotal: number;
  jobsDone: number;
  rowsRead: number;
  rowsWritten: number;
  calls: number;
  /** Per account: rows read and written, calls and the last error, in words. */
  accounts: Record<string, { rowsRead: number; rowsWritten: number; calls: number; failed: number; error: string | null }>;
  error: string | null;
}

/**
 * One account of an opened run: its jobs' sums (rows, calls, time) and its error once. Its name is the
 * connection's (`RunDetail.connection.source`), shown as the page shows every account of the run.
 */
export interface RunAccount {
  id: string;
  rowsRead: number;
  rowsWritten: number;
  calls: number;
  /** The time its jobs took, summed (a backfill's chunks run one after another per account). */
  durationMs: number;
  jobs: number;
  failed: number;
  error: string | null;
}

/** One run opened (the run page): per account figures, and its jobs (a backfill's chunks, oldest first). */
export interface RunDetail {
  connection: Pick<Connection, 'id' | 'name' | 'schedule' | 'source'>;
  run: Run;
  accounts: RunAccount[];
  jobs: RunJob[];
}

/** A day of what was written, per account: the connection page's chart. */
export interface WrittenDay {
  date: string;
  /** Spend is in the account's currency (ISO 4217); days written before it was recorded have none. */
  accounts: Record<string, { spend: number; clicks: number; impressions: number; currency?: string }>;
}

/** “Daily at 06:00 (Europe/Berlin)”, “Every hour”. */
export function scheduleInWords(schedule: Schedule): string {
  if (schedule.every === 'daily') return `Daily at ${schedule.at} (${schedule.timeZone})`;
  if (schedule.every === '6_hours') return `${SCHEDULE_LABELS['6_hours']} (from midnight, ${schedule.timeZone})`;
  return SCHEDULE_LABELS[schedule.every];
}

/** The plans whose sync frequency includes a schedule: “Growth and Scale”. */
export function plansWith(every: ScheduleEvery): string {
  const names = PLAN_ENTITLEMENTS.filter((plan) => schedulesAllowed(plan.syncFrequency).includes(every)).map((plan) => plan.name);
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** The plans that include historical backfills. */
export const plansWithBackfill = () =>
  PLAN_ENTITLEMENTS.filter((plan) => plan.historicalBackfill)
    .map((plan) => plan.name)
    .join(' and ');
