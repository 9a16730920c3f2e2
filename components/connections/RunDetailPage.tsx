import Link from 'next/link';
import { useRouter } from 'next/router';
import type { ReactNode } from 'react';
import styles from '@/components/connections/connections.module.css';
import { connectionPath } from '@/components/connections/paths';
import { accountName, errorsOf } from '@/components/connections/runErrors';
import {
  accountDaysNote,
  daysInWords,
  durationInWords,
  formatNumber,
  RUN_KIND_LABELS,
  RunOutcomeBadge,
} from '@/components/connections/shared';
import { LoadFailed, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Spinner from '@/components/ui/Spinner';
import { formatDateTime } from '@/components/ui/time';
import { runDays } from '@/lib/shared/connections/windows';
import type { RunDetail } from '@/lib/shared/connections/connection';
import { connectionsApi, useRunQuery } from '@/store/connectionsApi';
import ScrollRegion from '@/components/ui/ScrollRegion';
import TableHead from '@/components/ui/TableHead';
import SectionTitle from '@/components/ui/SectionTitle';

/** While the run lasts, the page refreshes so its accounts fill in. */
const RUNNING_REFRESH_MS = 5_000;

const JOB_STATUS_LABELS = {
  pending: 'Waiting',
  done: 'Done',
  failed: 'Failed',
  paused: 'Paused: reconnect',
  cancelled: 'Cancelled',
} as const;

/** A titled section of one table of figures, scrolled sideways when wider than the screen. */
function FiguresSection({
  id,
  title,
  label,
  columns,
  children,
}: {
  id: string;
  title: string;
  label: string;
  columns: string[];
  children: ReactNode;
}) {
  return (
    <section className="stack" aria-labelledby={id}>
      <SectionTitle id={id}>{title}</SectionTitle>
      <ScrollRegion label={`${label} (scrolls sideways)`}>
        <table className="table" aria-label={label}>
          <TableHead columns={columns} actions={false} />
          <tbody>{children}</tbody>
        </table>
      </ScrollRegion>
    </section>
  );
}

/** Each account of the run: rows read and written, API calls, time, and its error once. */
function Accounts({ detail }: { detail: RunDetail }) {
  const connection = detail.connection;
  return (
    <FiguresSection
      id="run-accounts-title"
      title="Accounts"
      label="Accounts of the run"
      columns={['Account', 'Rows read', 'Rows written', 'API calls', 'Time', 'Error']}
    >
      {detail.accounts.map((account) => (
        <tr key={account.id}>
          <th scope="row">{accountName(connection, account.id)}</th>
          <td className={styles.numeric}>{formatNumber(account.rowsRead)}</td>
          <td className={styles.numeric}>{formatNumber(account.rowsWritten)}</td>
          <td className={styles.numeric}>{formatNumber(account.calls)}</td>
          <td className={styles.numeric}>{durationInWords(account.durationMs)}</td>
          <td>{account.error ?? <span className="muted">None</span>}</td>
        </tr>
      ))}
    </FiguresSection>
  );
}

/** A backfill's chunks: which days of which account, and how each went. */
function Chunks({ detail }: { detail: RunDetail }) {
  const connection = detail.connection;
  return (
    <FiguresSection
      id="run-chunks-title"
      title="Chunks"
      label="Chunks of the backfill"
      columns={['Account', 'Days', 'Status', 'Rows read / written', 'API calls', 'Time', 'Attempts']}
    >
      {detail.jobs.map((job) => (
        <tr key={job.key}>
          <th scope="row">{accountName(connection, job.accountId)}</th>
          <td className={styles.numeric}>{daysInWords(job)}</td>
          <td>{JOB_STATUS_LABELS[job.status]}</td>
          <td className={styles.numeric}>
            {formatNumber(job.rowsRead)} / {formatNumber(job.rowsWritten)}
          </td>
          <td className={styles.numeric}>{formatNumber(job.calls)}</td>
          <td className={styles.numeric}>{durationInWords(job.durationMs)}</td>
          <td className={styles.numeric}>{job.attempts}</td>
        </tr>
      ))}
    </FiguresSection>
  );
}

function RunView({ orgId, id, runId }: { orgId: string; id: string; runId: string }) {
  const args = { orgId, id, runId };
  const cached = connectionsApi.endpoints.run.useQueryState(args);
  const running = cached.data?.run.outcome === 'running';
  const { data, error, isLoading } = useRunQuery(args, { pollingInterval: running ? RUNNING_REFRESH_MS : 0, skipPollingIfUnfocused: true });
  if (!data)
    return isLoading || !error ? <Spinner label="Loading the run" /> : <LoadFailed title="Run" error={error} fallback="Run not found." />;
  const { run, connection } = data;
  // The run's own error, unless an account's row already says it (each sentence once).
  const ownError = errorsOf(run, connection).filter((line) => line === run.error);
  const took = run.finishedAt ? Date.parse(run.finishedAt) - Date.parse(run.startedAt) : null;
  const zone = connection.schedule.timeZone;
  const days = runDays(run, zone);
  const accountDays = run.kind === 'backfill' ? null : accountDaysNote(days, run);
  return (
    <div className="stack" style={{ gap: '1.5rem', minWidth: 0 }}>
      <Title>{`Run of ${connection.name}`}</Title>
      <p style={{ margin: 0 }}>
        <Link href={connectionPath(orgId, id)}>← {connection.name}</Link>
      </p>
      <div className="stack" style={{ gap: '0.4rem' }}>
        <h1>
          {RUN_KIND_LABELS[run.kind]} run of {formatDateTime(run.startedAt)}
        </h1>
        <p className="muted" style={{ margin: 0 }}>
          <RunOutcomeBadge outcome={run.outcome} />
        </p>
      </div>
      <dl className={styles.review} aria-label="Run">
        <dt>Days</dt>
        <dd>
          {/* The days as the connection's time zone counts them, said so: an ad account's own may start a day apart. */}
          {daysInWords(days)} <span className="muted">in {zone}, the connection&apos;s time zone</span>
          {accountDays && (
            <p className="muted" style={{ margin: '0.25rem 0 0' }} data-testid="account-days">
              {accountDays}
            </p>
          )}
        </dd>
        <dt>Rows read / written</dt>
        <dd>
          {formatNumber(run.rowsRead)} / {formatNumber(run.rowsWritten)}
        </dd>
        <dt>API calls</dt>
        <dd>{formatNumber(run.calls)}</dd>
        <dt>Duration</dt>
        <dd>{took === null ? 'Still running' : durationInWords(took)}</dd>
      </dl>
      {ownError.length > 0 && (
        // Present when the page loads: a plain box, not an alert a screen reader interrupts with.
        <p className="alert alert--error" style={{ margin: 0 }}>
          {ownError[0]}
        </p>
      )}
      <Accounts detail={data} />
      {run.kind === 'backfill' && data.jobs.length > 0 && <Chunks detail={data} />}
    </div>
  );
}

/** `/{orgId}/connection/{id}/runs/{runId}`: one run opened from the run history. */
export function RunDetailPage() {
  const { query } = useRouter();
  const { orgId, role } = useOrganizationContext();
  const id = typeof query.id === 'string' ? query.id : null;
  const runId = typeof query.runId === 'string' ? query.runId : null;
  if (!orgId || !role || !id || !runId) return <Spinner label="Loading" />;
  return <RunView key={`${id}/${runId}`} orgId={orgId} id={id} runId={runId} />;
}
