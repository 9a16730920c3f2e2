import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState } from 'react';
import styles from '@/components/connections/connections.module.css';
import RunHistory from '@/components/connections/RunHistory';
import { connectionsPath, connectionTestPath } from '@/components/connections/paths';
import {
  ConnectionStatusBadge,
  deadObjectOf,
  destinationInWords,
  ReconnectLink,
  RunOutcomeBadge,
  sourceInWords,
} from '@/components/connections/shared';
import { RelativeTime, useNow } from '@/components/ui/time';
import { FailureAlert } from '@/components/ui/failures';
import { LoadFailed, messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Button from '@/components/ui/Button';
import DeleteButton from '@/components/ui/DeleteButton';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import { Stat, Stats } from '@/components/ui/Stats';
import SectionTitle from '@/components/ui/SectionTitle';
import { scheduleInWords, type Connection } from '@/lib/shared/connections/connection';
import { AD_LEVEL_LABELS } from '@/lib/shared/connections/rows';
import { configurationPathOf, PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { can, type Role } from '@/lib/shared/permissions';
import {
  connectionsApi,
  useConnectionQuery,
  useDeleteConnectionMutation,
  useRunConnectionMutation,
  useUpdateConnectionMutation,
  type ConnectionDetail,
} from '@/store/connectionsApi';
import { useIntegrationsQuery } from '@/store/integrationsApi';

// The chart and the backfill (with its live listener) load beside the page, not in its first load.
const PerformanceChart = dynamic(() => import('@/components/connections/PerformanceChart'), {
  loading: () => <Spinner label="Loading the chart" />,
});
// The edit form (its fields and the schemas it checks with) loads when Edit is pressed.
const EditConnectionForm = dynamic(() => import('@/components/connections/EditConnectionForm'), {
  loading: () => <Spinner label="Loading the form" />,
});
const BackfillSection = dynamic(() => import('@/components/connections/BackfillSection'), {
  loading: () => <Spinner label="Loading the backfill" />,
});

/**
 * While a scheduled or manual run is in progress, or one is due (the scheduler picks it up within its
 * tick), the page refreshes, so Run now and a new connection's first run show their result without a reload.
 */
const RUNNING_REFRESH_MS = 5_000;

const runInProgress = (detail: ConnectionDetail | undefined) =>
  Boolean(detail?.connection.runningRunId) || Boolean(detail?.runs.some((run) => run.kind !== 'backfill' && run.outcome === 'running'));

const runDue = (detail: ConnectionDetail | undefined, now: number) =>
  detail?.connection.status === 'active' && detail.connection.nextRunAt !== null && new Date(detail.connection.nextRunAt).getTime() <= now;

/** Why it is not running, and the way out. */
function StatusNotice({ orgId, connection }: { orgId: string; connection: Connection }) {
  const { data: sources } = useIntegrationsQuery({ orgId, kind: 'source' });
  const { data: destinations } = useIntegrationsQuery({ orgId, kind: 'destination' });
  if (connection.status === 'needs_reauth') {
    const dead = deadObjectOf(connection, sources, destinations);
    return (
      <div role="alert" className="alert alert--error stack" style={{ gap: '0.4rem' }}>
        <strong>Needs reconnecting: no runs until you do.</strong>
        {connection.statusReason && <span>{connection.statusReason}</span>}
        <span>
          <ReconnectLink
            orgId={orgId}
            connection={connection}
            dead={dead}
            label={`Reconnect ${PLATFORM_LABELS[dead?.platform ?? connection.source.platform]}`}
          />
        </span>
      </div>
    );
  }
  if (connection.status === 'failing') {
    return (
      <div role="alert" className="alert alert--error">
        <strong>The last runs failed.</strong> {connection.statusReason ?? 'The run history says why.'}
      </div>
    );
  }
  if (connection.status === 'paused' && connection.pausedByPlan) {
    return (
      <div role="alert" className="alert alert--error" data-testid="paused-by-plan">
        {connection.pausedByPlan} <Link href={`/${encodeURIComponent(orgId)}/subscription`}>See the plans</Link>
      </div>
    );
  }
  if (connection.status === 'paused') {
    return (
      <p role="status" className="alert alert--info" style={{ margin: 0 }}>
        Paused: no scheduled runs until you resume it.
      </p>
    );
  }
  return null;
}

/** Run now, Pause / Resume and the test page. */
function Actions({
  orgId,
  connection,
  running,
  onNotice,
}: {
  orgId: string;
  connection: Connection;
  running: boolean;
  onNotice: (notice: NoticeValue | null) => void;
}) {
  const [run, starting] = useRunConnectionMutation();
  const [update, updating] = useUpdateConnectionMutation();

  async function runNow() {
    onNotice(null);
    const result = await run({ orgId, id: connection.id });
    if (!('error' in result)) onNotice({ ok: true, text: 'Run started. Its result appears in the run history below.' });
  }

  async function setStatus(status: 'active' | 'paused') {
    onNotice(null);
    const result = await update({ orgId, id: connection.id, changes: { status } });
    if (!('error' in result)) onNotice({ ok: true, text: status === 'active' ? 'Resumed. The next run is due now.' : 'Paused.' });
  }

  const error = starting.error ?? updating.error;
  return (
    <section className="stack" aria-label="Actions" style={{ gap: '0.75rem' }}>
      <div className="actions" style={{ justifyContent: 'flex-start', flexWrap: 'wrap' }}>
        <Button
          type="button"
          busy={starting.isLoading || running}
          disabled={connection.status === 'paused' || connection.status === 'needs_reauth'}
          onClick={() => void runNow()}
        >
          {running ? 'Running…' : 'Run now'}
        </Button>
        {connection.status === 'paused' ? (
          <Button type="button" variant="secondary" busy={updating.isLoading} onClick={() => void setStatus('active')}>
            Resume
          </Button>
        ) : (
          <Button type="button" variant="secondary" busy={updating.isLoading} onClick={() => void setStatus('paused')}>
            Pause
          </Button>
        )}
        <Link className="button button--secondary" href={connectionTestPath(orgId, connection.id)}>
          Test (dry run)
        </Link>
      </div>
      {error && (
        <FailureAlert orgId={orgId} error={error} fallback={starting.error ? 'Could not start the run.' : 'Could not change the status.'} />
      )}
    </section>
  );
}

/** Name, accounts, level, schedule and lookback, edited together. */
function Settings({
  orgId,
  connection,
  canEdit,
  plan,
  onSaved,
}: {
  orgId: string;
  connection: Connection;
  canEdit: boolean;
  plan: unknown;
  onSaved: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const { source, destination } = connection;
  return (
    <section className="stack" aria-labelledby="settings-title">
      <div className="toolbar">
        <SectionTitle id="settings-title">Settings</SectionTitle>
        {canEdit && !editing && (
          <Button type="button" variant="secondary" className="button--small" onClick={() => setEditing(true)}>
            Edit settings
          </Button>
        )}
      </div>
      {editing ? (
        <EditConnectionForm
          orgId={orgId}
          connection={connection}
          plan={plan}
          onDone={(saved) => {
            setEditing(false);
            if (saved) onSaved();
          }}
        />
      ) : (
        <dl className={styles.review}>
          <dt>Source</dt>
          <dd>
            <Link href={configurationPathOf(orgId, 'source', source.sourceId, source.platform)}>
              {PLATFORM_LABELS[source.platform]} source
            </Link>
          </dd>
          <dt>Ad accounts</dt>
          <dd>{source.accounts.map((account) => `${account.name || account.id} (${account.id})`).join(', ')}</dd>
          <dt>Destination</dt>
          <dd>
            <Link href={configurationPathOf(orgId, 'destination', destination.destinationId, destination.platform)}>
              {destinationInWords(connection)}
            </Link>
          </dd>
          <dt>Level</dt>
          <dd>{AD_LEVEL_LABELS[connection.level]}</dd>
          <dt>Schedule</dt>
          <dd>{scheduleInWords(connection.schedule)}</dd>
          <dt>Lookback</dt>
          <dd>Each run re-reads the last {connection.lookbackDays} days.</dd>
        </dl>
      )}
    </section>
  );
}

function ConnectionConfiguration({ orgId, role, plan, id }: { orgId: string; role: Role; plan: unknown; id: string }) {
  const router = useRouter();
  const now = useNow(5_000);
  const cached = connectionsApi.endpoints.connection.useQueryState({ orgId, id });
  const running = runInProgress(cached.data);
  const pollingInterval = running || runDue(cached.data, now) ? RUNNING_REFRESH_MS : 0;
  const { data: detail, isLoading, error, refetch } = useConnectionQuery({ orgId, id }, { pollingInterval, skipPollingIfUnfocused: true });
  const [remove] = useDeleteConnectionMutation();
  const [notice, setNotice] = useState<NoticeValue | null>(null);

  // A failed refresh keeps what was loaded; only a first load that failed shows the reason instead.
  if (!detail)
    return isLoading || !error ? (
      <Spinner label="Loading the connection" />
    ) : (
      <LoadFailed title="Connection" error={error} fallback="Connection not found." />
    );
  const { connection } = detail;
  const canEdit = can(role, 'connection', 'update');
  const lastRun = connection.lastRun;

  return (
    <div className="stack" style={{ gap: '2rem', minWidth: 0 }}>
      <Title>{connection.name}</Title>
      <div className="stack" style={{ gap: '0.4rem' }}>
        <p style={{ margin: 0 }}>
          <Link href={connectionsPath(orgId)}>← Connections</Link>
        </p>
        <h1>{connection.name}</h1>
        <p className="muted" style={{ margin: 0 }}>
          {sourceInWords(connection)} → {destinationInWords(connection)}{' '}
          <ConnectionStatusBadge status={connection.status} pausedByPlan={connection.pausedByPlan} />
        </p>
      </div>

      <StatusNotice orgId={orgId} connection={connection} />
      {canEdit && <Actions orgId={orgId} connection={connection} running={running} onNotice={setNotice} />}
      <Notice notice={notice} />

      <Stats label="Runs">
        <Stat label="Last run">
          {running ? (
            <RunOutcomeBadge outcome="running" />
          ) : lastRun ? (
            <>
              <RunOutcomeBadge outcome={lastRun.outcome} /> <RelativeTime iso={lastRun.at} now={now} />
            </>
          ) : (
            'Never'
          )}
        </Stat>
        <Stat label="Next run">
          {connection.status === 'paused' || connection.status === 'needs_reauth' ? (
            '—'
          ) : connection.nextRunAt ? (
            new Date(connection.nextRunAt).getTime() <= now ? (
              'Due now'
            ) : (
              <RelativeTime iso={connection.nextRunAt} now={now} />
            )
          ) : (
            '—'
          )}
        </Stat>
        <Stat label="Schedule">{scheduleInWords(connection.schedule)}</Stat>
      </Stats>

      <PerformanceChart days={detail.days} connection={connection} />
      <RunHistory orgId={orgId} runs={detail.runs} connection={connection} now={now} />
      <Settings
        key={JSON.stringify([connection.name, connection.level, connection.schedule, connection.lookbackDays, connection.source.accounts])}
        orgId={orgId}
        connection={connection}
        canEdit={canEdit}
        plan={plan}
        onSaved={() => setNotice({ ok: true, text: 'Saved.' })}
      />
      <BackfillSection orgId={orgId} detail={detail} canEdit={canEdit} now={now} onChanged={() => void refetch()} />

      {can(role, 'connection', 'delete') && (
        <section className="stack" aria-labelledby="danger-title">
          <SectionTitle id="danger-title">Delete</SectionTitle>
          <p className="muted" style={{ margin: 0 }}>
            Deleting stops the runs and removes the run history. What was written to {PLATFORM_LABELS[connection.destination.platform]}{' '}
            stays there.
          </p>
          <div>
            <DeleteButton
              name={connection.name}
              confirmLabel="Delete connection"
              small
              explanation={() => <p>No more runs or backfills. The rows already in {destinationInWords(connection)} are not touched.</p>}
              onDelete={async () => {
                const result = await remove({ orgId, id });
                return 'error' in result ? messageOf(result.error, 'Could not delete the connection.') : null;
              }}
              onDeleted={() => void router.push(connectionsPath(orgId))}
            />
          </div>
        </section>
      )}
    </div>
  );
}

/** `/{orgId}/connection/{id}/configuration`. */
export function ConnectionConfigurationPage() {
  const { query } = useRouter();
  const { orgId, role, plan } = useOrganizationContext();
  const id = typeof query.id === 'string' ? query.id : null;
  if (!orgId || !role || !id) return <Spinner label="Loading" />;
  return <ConnectionConfiguration key={id} orgId={orgId} role={role} plan={plan} id={id} />;
}
