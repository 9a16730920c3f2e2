import Link from 'next/link';
import { useState } from 'react';
import styles from '@/components/connections/connections.module.css';
import { runPath, runsCsvUrl } from '@/components/connections/paths';
import { errorsOf } from '@/components/connections/runErrors';
import { daysInWords, durationInWords, formatNumber, RUN_KIND_LABELS, RunOutcomeBadge } from '@/components/connections/shared';
import Button from '@/components/ui/Button';
import { formatDateTime, RelativeTime } from '@/components/ui/time';
import { downloadFile } from '@/lib/client/download';
import type { Connection, Run } from '@/lib/shared/connections/connection';
import { runDays } from '@/lib/shared/connections/windows';
import ScrollRegion from '@/components/ui/ScrollRegion';
import TableHead from '@/components/ui/TableHead';
import SectionTitle from '@/components/ui/SectionTitle';

/** Saves the run history as CSV (fetched as the signed-in user). */
function CsvExport({ orgId, connection }: { orgId: string; connection: Connection }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  async function save() {
    setState({ busy: true, error: null });
    const error = await downloadFile(runsCsvUrl(orgId, connection.id), `${connection.name} runs.csv`);
    setState({ busy: false, error });
  }
  return (
    <>
      <Button type="button" variant="secondary" className="button--small" busy={state.busy} onClick={() => void save()}>
        Download CSV
      </Button>
      {state.error && (
        <p role="alert" className="alert alert--error" style={{ margin: 0 }}>
          Could not download the run history: {state.error}
        </p>
      )}
    </>
  );
}

/** Recent runs, newest first: when, what kind, which days, rows, calls, how long and how it went; each opens. */
export default function RunHistory({ orgId, runs, connection, now }: { orgId: string; runs: Run[]; connection: Connection; now: number }) {
  return (
    <section className="stack" aria-labelledby="history-title">
      <div className="toolbar">
        <SectionTitle id="history-title">Run history</SectionTitle>
        {runs.length > 0 && <CsvExport orgId={orgId} connection={connection} />}
      </div>
      {runs.length === 0 ? (
        <p className="empty-state" data-testid="runs-empty">
          No runs yet. The first one starts within a minute of creating the connection, or use Run now.
        </p>
      ) : (
        <>
          <p className="muted" style={{ margin: 0 }} data-testid="runs-time-zone">
            A run&apos;s days are counted in {connection.schedule.timeZone}, the connection&apos;s time zone; each ad account dates its rows
            in its own, so they can start or end a day apart.
          </p>
          <ScrollRegion label="Run history (scrolls sideways)">
            <table className="table table--cards" aria-label="Run history">
              <TableHead columns={['Started', 'Kind', 'Days', 'Rows read / written', 'API calls', 'Duration', 'Outcome']} actions={false} />
              <tbody>
                {runs.map((run) => {
                  const errors = errorsOf(run, connection);
                  const took = (run.finishedAt ? new Date(run.finishedAt).getTime() : now) - new Date(run.startedAt).getTime();
                  return (
                    <tr key={run.id}>
                      <td className={styles.numeric} title={formatDateTime(run.startedAt)}>
                        {/* The visible time starts the link's name (WCAG 2.5.3): a voice user says what they see. */}
                        <Link href={runPath(orgId, connection.id, run.id)}>
                          <RelativeTime iso={run.startedAt} now={now} />
                          <span className="sr-only">, open the run of {formatDateTime(run.startedAt)}</span>
                        </Link>
                      </td>
                      <td data-label="Kind">{RUN_KIND_LABELS[run.kind]}</td>
                      <td data-label="Days" className={styles.numeric}>
                        {daysInWords(runDays(run, connection.schedule.timeZone))}
                      </td>
                      <td data-label="Rows read / written" className={styles.numeric}>
                        {formatNumber(run.rowsRead)} / {formatNumber(run.rowsWritten)}
                      </td>
                      <td data-label="API calls" className={styles.numeric}>
                        {formatNumber(run.calls)}
                      </td>
                      <td data-label="Duration" className={styles.numeric}>
                        {run.finishedAt ? durationInWords(took) : `${durationInWords(took)} so far`}
                      </td>
                      <td data-label="Outcome">
                        <RunOutcomeBadge outcome={run.outcome} />
                        {run.kind === 'backfill' && run.outcome === 'running' && run.jobsTotal > 0 && (
                          <span className="muted">
                            {' '}
                            {run.jobsDone} of {run.jobsTotal}
                          </span>
                        )}
                        {errors.length > 0 && (
                          <ul className={styles.errors} aria-label="Errors">
                            {errors.map((error) => (
                              <li key={error}>{error}</li>
                            ))}
                          </ul>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </ScrollRegion>
        </>
      )}
    </section>
  );
}
