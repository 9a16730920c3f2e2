import { forgetAlerts } from '@/lib/server/alerts';
import { entitlementsOf, includesAdAccounts, PLAN_ENTITLEMENTS } from '@/lib/shared/billing/entitlements';
import {
  schedulesAllowed,
  SCHEDULE_LABELS,
  type Connection,
  type Run,
  type Schedule,
  type WrittenDay,
} from '@/lib/shared/connections/connection';
import type { CreateConnectionInput, UpdateConnectionInput } from '@/lib/shared/schemas/connections';
import type { AdRow } from '@/lib/shared/connections/rows';
import { addDays, chunksOf, earliestBackfillDay, lookbackWindow, nextRunAt, toDay } from '@/lib/shared/connections/windows';
import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import {
  AD_PLATFORMS_IN_WORDS,
  DEFAULT_LOOKBACK_DAYS,
  HISTORY_MONTHS,
  isAdPlatform,
  PLATFORM_LABELS,
  type Integration,
  type IntegrationKind,
  AD_DATA_DESTINATIONS_IN_WORDS,
  isAdDataDestination,
  writesTables,
} from '@/lib/shared/integrations/platforms';
import { trackEvent } from '@/lib/server/analytics';
import { connectorFor } from '@/lib/server/connectors/registry';
import { withSession } from '@/lib/server/credentials';
import { DomainError, invalidFields } from '@/lib/server/errors';
import { publishSyncJobs } from '@/lib/server/queue/pubsub';
import { describeWait } from '@/lib/shared/rateLimitMessages';
import * as repo from '@/lib/server/repos/connections';
import * as ledger from '@/lib/server/repos/ledger';
import { getIntegration } from '@/lib/server/repos/integrations';
import { readWindow, writeTargetOf } from '@/lib/server/sync/runner';
import { startRun } from '@/lib/server/sync/scheduler';
import { applyPlan } from '@/lib/server/services/planLimits';
import { plural } from '@/lib/shared/plural';

/**
 * Connections beyond storage: the source's accounts and the destination belong to the organization,
 * the plan allows the schedule, the accounts and a backfill; runs, backfills and the dry-run test.
 */

const DEFAULT_DATASET = 'signalbridge';
const DEFAULT_TABLE = 'ad_performance';
/** Jobs (accounts × 30-day chunks) one backfill may hold. */
const MAX_BACKFILL_JOBS = 1500;
/** The test page reads this many days of one account. */
const TEST_DAYS = 7;

export function assertSchedule(plan: unknown, every: Schedule['every']) {
  const entitlements = entitlementsOf(plan);
  if (schedulesAllowed(entitlements.syncFrequency).includes(every)) return;
  const plans = PLAN_ENTITLEMENTS.filter((candidate) => schedulesAllowed(candidate.syncFrequency).includes(every)).map(
    (candidate) => candidate.name,
  );
  throw new DomainError(
    'plan_limit',
    `${SCHEDULE_LABELS[every]} syncs are included in the ${plans.join(' and ')} plan${plans.length === 1 ? '' : 's'}. Upgrade, or pick a less frequent schedule.`,
  );
}

/** Ad accounts across the organization's connections, counting `next` instead of the one being edited. */
async function assertAdAccounts(orgId: string, plan: unknown, next: Array<{ sourceId: string; accountIds: string[] }>, exceptId?: string) {
  const entitlements = entitlementsOf(plan);
  const existing = (await repo.listConnections(orgId)).filter((connection) => connection.id !== exceptId);
  const keys = new Set([
    ...existing.flatMap((connection) => connection.source.accounts.map((account) => `${connection.source.sourceId}/${account.id}`)),
    ...next.flatMap(({ sourceId, accountIds }) => accountIds.map((id) => `${sourceId}/${id}`)),
  ]);
  if (includesAdAccounts(entitlements, keys.size)) return;
  throw new DomainError(
    'plan_limit',
    `Your ${entitlements.name} plan syncs up to ${entitlements.adAccounts} ad accounts; these connections would sync ${keys.size}. Upgrade to add more.`,
  );
}

function accountsOf(source: Integration, accountIds: string[]) {
  const unknown = accountIds.filter((id) => !source.accounts.some((account) => account.id === id));
  if (unknown.length) throw invalidFields({ accountIds: [`Pick accounts of this ${PLATFORM_LABELS[source.platform]} source`] });
  return [...new Set(accountIds)].map((id) => {
    const account = source.accounts.find((candidate) => candidate.id === id)!;
    return { id: account.id, name: account.name };
  });
}

export async function createConnection(orgId: string, plan: unknown, uid: string, input: CreateConnectionInput): Promise<Connection> {
  const source = await getIntegration(orgId, 'source', input.sourceId);
  if (!isAdPlatform(source.platform)) throw invalidFields({ sourceId: [`Pick a ${AD_PLATFORMS_IN_WORDS} source`] });
  const accounts = accountsOf(source, input.accountIds);
  const destination = await getIntegration(orgId, 'destination', input.destinationId);
  if (!isAdDataDestination(destination.platform))
    throw invalidFields({ destinationId: [`Pick a ${AD_DATA_DESTINATIONS_IN_WORDS} destination`] });
  const tables = writesTables(destination.platform);
  assertSchedule(plan, input.schedule.every);
  await assertAdAccounts(orgId, plan, [{ sourceId: source.id, accountIds: accounts.map((account) => account.id) }]);
  const projectId = tables
    ? (input.projectId ?? destination.settings.projectId ?? destination.accounts[0]?.id)
    : destination.settings.projectId;
  if (!projectId || (tables && destination.accounts.length > 0 && !destination.accounts.some((account) => account.id === projectId))) {
    throw invalidFields({ projectId: ['Pick one of the destination’s BigQuery projects'] });
  }
  const schedule: Schedule = input.schedule;
  const connection = await repo.createConnection(orgId, {
    name: input.name,
    source: { sourceId: source.id, platform: source.platform, accounts },
    destination: {
      destinationId: destination.id,
      platform: destination.platform,
      projectId,
      dataset: tables ? (input.dataset ?? DEFAULT_DATASET) : null,
      table: tables ? (input.table ?? DEFAULT_TABLE) : null,
    },
    level: input.level,
    schedule,
    lookbackDays: input.lookbackDays ?? DEFAULT_LOOKBACK_DAYS[source.platform],
    // The first run is due at once: a new connection shows data within a minute.
    nextRunAt: new Date(),
    uid,
  });
  await trackEvent(uid, ANALYTICS_EVENTS.connectionCreated, {
    org_id: orgId,
    connection_id: connection.id,
    source: source.platform,
    destination: destination.platform,
  });
  return connection;
}

export async function updateConnection(orgId: string, plan: unknown, id: string, changes: UpdateConnectionInput): Promise<Connection> {
  const current = await repo.getConnection(orgId, id);
  if (changes.schedule) assertSchedule(plan, changes.schedule.every);
  let accounts: Connection['source']['accounts'] | undefined;
  if (changes.accountIds) {
    const source = await getIntegration(orgId, 'source', current.source.sourceId);
    accounts = accountsOf(source, changes.accountIds);
    await assertAdAccounts(orgId, plan, [{ sourceId: source.id, accountIds: accounts.map((account) => account.id) }], id);
  }
  const schedule = changes.schedule;
  const updated = await repo.updateConnection(orgId, id, {
    name: changes.name,
    accounts,
    level: changes.level,
    schedule,
    lookbackDays: changes.lookbackDays,
    status: changes.status,
    nextRunAt: schedule ? nextRunAt(schedule) : changes.status === 'active' ? new Date() : undefined,
  });
  // An edit may bring it (or another) back within the plan, or a resume past it.
  const { paused, resumed } = await applyPlan(orgId, plan);
  return paused.includes(id) || resumed.includes(id) ? repo.getConnection(orgId, id) : updated;
}

export async function deleteConnection(orgId: string, uid: string, id: string): Promise<void> {
  const connection = await repo.getConnection(orgId, id);
  await repo.deleteConnection(orgId, id);
  await forgetAlerts(orgId, { type: 'connection', id });
  await trackEvent(uid, ANALYTICS_EVENTS.connectionDeleted, { org_id: orgId, connection_id: id, source: connection.source.platform });
}

/** A connection as the pages show it: a source or destination whose login died decides "needs reconnecting". */
function withLiveStatus(connection: Connection, source: Integration | null, destination: Integration | null): Connection {
  const dead = [source, destination].find((object) => object?.status === 'needs_reauth');
  if (!dead) return connection;
  return {
    ...connection,
    status: 'needs_reauth',
    statusReason: `${PLATFORM_LABELS[dead.platform]} has disconnected this ${dead.kind}. Reconnect it: runs resume after you do.`,
  };
}

const objectOf = (orgId: string, kind: IntegrationKind, id: string) => getIntegration(orgId, kind, id).catch(() => null);

export async function listConnections(orgId: string): Promise<Connection[]> {
  const connections = await repo.listConnections(orgId);
  const ids = (kind: IntegrationKind) => [
    ...new Set(connections.map((connection) => (kind === 'source' ? connection.source.sourceId : connection.destination.destinationId))),
  ];
  const load = async (kind: IntegrationKind) =>
    new Map(
      (await Promise.all(ids(kind).map((id) => objectOf(orgId, kind, id)))).flatMap((object) =>
        object ? [[object.id, object] as const] : [],
      ),
    );
  const [sources, destinations] = await Promise.all([load('source'), load('destination')]);
  return connections.map((connection) =>
    withLiveStatus(
      connection,
      sources.get(connection.source.sourceId) ?? null,
      destinations.get(connection.destination.destinationId) ?? null,
    ),
  );
}

export interface ConnectionDetail {
  connection: Connection;
  runs: Run[];
  days: WrittenDay[];
  /** The earliest day a backfill may start, and what the platform keeps. */
  backfill: { earliest: string; allowed: boolean };
}

export async function connectionDetail(orgId: string, plan: unknown, id: string): Promise<ConnectionDetail> {
  const connection = await repo.getConnection(orgId, id);
  const [source, destination, runs, days] = await Promise.all([
    objectOf(orgId, 'source', connection.source.sourceId),
    objectOf(orgId, 'destination', connection.destination.destinationId),
    ledger.listRuns(orgId, id),
    repo.writtenDays(orgId, id),
  ]);
  return {
    connection: withLiveStatus(connection, source, destination),
    runs,
    days,
    backfill: {
      earliest: earliestBackfillDay(HISTORY_MONTHS[connection.source.platform]),
      allowed: entitlementsOf(plan).historicalBackfill,
    },
  };
}

/** How long after one "Run now" the next may start: each is a full sync of every account. */
export const RUN_NOW_COOLDOWN_MS = 5 * 60_000;

/** "Run now": refused (conflict) while a run is in progress, and (rate_limited) within the cooldown of the last one. */
export async function runNow(orgId: string, id: string): Promise<{ runId: string }> {
  const connection = await repo.getConnection(orgId, id);
  if (connection.pausedByPlan) throw new DomainError('plan_limit', connection.pausedByPlan);
  if (connection.status === 'paused') throw new DomainError('conflict', 'This connection is paused. Resume it to run it.');
  const last = await ledger.lastManualRunAt(orgId, id);
  const wait = last === null ? 0 : Math.ceil((last.getTime() + RUN_NOW_COOLDOWN_MS - Date.now()) / 1000);
  if (wait > 0 && !connection.runningRunId)
    throw new DomainError('rate_limited', `This connection ran a moment ago. Run it again in ${describeWait(wait)}.`, {
      retryAfter: wait,
    });
  const runId = await startRun(orgId, id, 'manual');
  if (!runId)
    throw new DomainError('conflict', 'A run of this connection is in progress. Wait for it to finish.', { reason: 'run_in_progress' });
  return { runId };
}

export async function startBackfill(
  orgId: string,
  plan: unknown,
  uid: string,
  id: string,
  from: string,
): Promise<{ runId: string; chunks: number }> {
  if (!entitlementsOf(plan).historicalBackfill) {
    const plans = PLAN_ENTITLEMENTS.filter((candidate) => candidate.historicalBackfill).map((candidate) => candidate.name);
    throw new DomainError(
      'plan_limit',
      `Historical backfills are included in the ${plans.join(' and ')} plan. Upgrade to backfill past days.`,
    );
  }
  const connection = await repo.getConnection(orgId, id);
  const earliest = earliestBackfillDay(HISTORY_MONTHS[connection.source.platform]);
  const today = toDay(Date.now());
  if (from < earliest)
    throw invalidFields({
      from: [`${PLATFORM_LABELS[connection.source.platform]} keeps daily figures from ${earliest}; start on or after it`],
    });
  if (from > today) throw invalidFields({ from: ['Pick a day in the past'] });
  // Up to the day before the scheduled runs' window: those runs keep the recent days.
  const scheduled = lookbackWindow(connection.lookbackDays);
  const to = addDays(scheduled.from, -1);
  const window = { from, to: to < from ? from : to };
  const chunks = chunksOf(window);
  // A backfill's jobs live in one run document (its live progress in one read): keep it well under Firestore's 1 MiB.
  const jobs = chunks.length * connection.source.accounts.length;
  if (jobs > MAX_BACKFILL_JOBS) {
    const days = Math.floor(MAX_BACKFILL_JOBS / connection.source.accounts.length) * 30;
    throw invalidFields({
      from: [
        `${plural(connection.source.accounts.length, 'account')} can backfill about ${plural(days, 'day')} at once; start later, then backfill the earlier days after`,
      ],
    });
  }
  let started: { runId: string; jobs: Array<{ key: string }> };
  try {
    started = await ledger.startBackfillRun(orgId, id, window, chunks);
  } catch (error) {
    if (error instanceof ledger.BackfillInProgress)
      throw new DomainError('conflict', 'A backfill of this connection is in progress. Cancel it or wait for it to finish.', {
        reason: 'backfill_in_progress',
      });
    throw error;
  }
  try {
    await publishSyncJobs(
      started.jobs.map((job) => ({ org: orgId, connection: id, run: started.runId, job: job.key, platform: connection.source.platform })),
      'backfill',
    );
  } catch (error) {
    await ledger.abandonRun(orgId, id, started.runId);
    throw error;
  }
  await trackEvent(uid, ANALYTICS_EVENTS.connectionHistoricalBackfillStarted, {
    org_id: orgId,
    connection_id: id,
    from,
    chunks: chunks.length,
  });
  return { runId: started.runId, chunks: chunks.length };
}

export async function cancelBackfill(orgId: string, id: string): Promise<void> {
  const connection = await repo.getConnection(orgId, id);
  if (!connection.backfillRunId) throw new DomainError('not_found', 'This connection has no backfill.');
  await ledger.cancelRun(orgId, id, connection.backfillRunId);
}

export interface TestResult {
  account: { id: string; name: string };
  from: string;
  to: string;
  rows: AdRow[];
  calls: number;
  destination: { ok: boolean; message: string };
}

/** The dry run: reads the last 7 days of one account and checks the destination. Writes nothing. */
export async function testConnection(orgId: string, id: string, accountId: string): Promise<TestResult> {
  const connection = await repo.getConnection(orgId, id);
  const account = connection.source.accounts.find((candidate) => candidate.id === accountId);
  if (!account) throw invalidFields({ accountId: ['Pick one of the connection’s accounts'] });
  const to = toDay(Date.now());
  const from = addDays(to, -(TEST_DAYS - 1));
  let calls = 0;
  const rows = await withSession(orgId, 'source', connection.source.sourceId, (session, source) =>
    readWindow(session, connection.source.platform, {
      account: source.accounts.find((candidate) => candidate.id === accountId) ?? account,
      level: connection.level,
      from,
      to,
      onCall: () => calls++,
    }),
  );
  const destination = await withSession(orgId, 'destination', connection.destination.destinationId, async (session, object) => {
    const writer = connectorFor(object.platform).writer;
    if (!writer) return { ok: false, message: `${PLATFORM_LABELS[object.platform]} cannot receive ad performance.` };
    return { ok: true, message: await writer.check(session, writeTargetOf(connection, object.settings)) };
  }).catch((error: unknown) => ({
    ok: false,
    message: error instanceof DomainError ? error.message : 'The destination could not be checked.',
  }));
  return { account, from, to, rows, calls, destination };
}

/**
 * After a source or destination is reconnected: its connections run again at once, and a backfill
 * the dead login paused picks up its remaining chunks.
 */
export async function resumeConnections(orgId: string, kind: IntegrationKind, objectId: string): Promise<void> {
  const connections = await repo.connectionsOf(orgId, kind === 'source' ? 'source_id' : 'destination_id', objectId);
  const waiting = connections.filter((connection) => connection.status === 'needs_reauth' || connection.status === 'failing');
  await repo.setConnectionsStatus(
    orgId,
    waiting.map((connection) => connection.id),
    'active',
    null,
  );
  for (const connection of connections) {
    if (!connection.backfillRunId) continue;
    const jobs = await ledger.reopenPausedJobs(orgId, connection.id, connection.backfillRunId);
    if (jobs.length)
      await publishSyncJobs(
        jobs.map((job) => ({
          org: orgId,
          connection: connection.id,
          run: connection.backfillRunId!,
          job: job.key,
          platform: connection.source.platform,
        })),
        'backfill',
      );
  }
}
