import styles from '@/components/connections/connections.module.css';
import { durationInWords, formatDay, formatNumber, RUN_KIND_LABELS, RunOutcomeBadge } from '@/components/connections/shared';
import { formatDateTime, RelativeTime } from '@/components/ui/time';
import type { Connection, Run } from '@/lib/shared/connections/connection';

/** The errors of a run in words: the run's own, then each account's ("Acme Shoes (123): quota exhausted"). */
function errorsOf(run: Run, connection: Connection): string[] {
  const nameOf = (id: string) => {
    const account = connection.source.accounts.find((candidate) => candidate.id === id);
    return account?.name ? `${account.name} (${id})` : id;
  };
  const accounts = Object.entries(run.accounts ?? {})
    .filter(([, account]) => account.error)
    .map(([id, account]) => `${nameOf(id)}: ${account.error}`);
  return [...(run.error ? [run.error] : []), ...accounts];
}

/** Recent runs, newest first: when, what kind, which days, rows, calls, how long and how it went. */
export default function RunHistory({ runs, connection, now }: { runs: Run[]; connection: Connection; now: number }) {
  return (
    <section className="stack" aria-labelledby="history-title">
      <h2 id="history-title" style={{ margin: 0, fontSize: '1.1rem' }}>
        Run history
      </h2>
      {runs.length === 0 ? (
        <p className="empty-state" data-testid="runs-empty">
          No runs yet. The first one starts within a minute of creating the connection, or use Run now.
        </p>
      ) : (
        <div className={styles.scroll}>
          <table className="table table--cards" aria-label="Run history">
            <thead>
              <tr>
                {['Started', 'Kind', 'Days', 'Rows read / written', 'API calls', 'Duration', 'Outcome'].map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => {
                const errors = errorsOf(run, connection);
                const took = (run.finishedAt ? new Date(run.finishedAt).getTime() : now) - new Date(run.startedAt).getTime();
                return (
                  <tr key={run.id}>
                    <td className={styles.numeric} title={formatDateTime(run.startedAt)}>
                      <RelativeTime iso={run.startedAt} now={now} />
                    </td>
                    <td data-label="Kind">{RUN_KIND_LABELS[run.kind]}</td>
                    <td data-label="Days" className={styles.numeric}>
                      {run.from === run.to ? formatDay(run.from) : `${formatDay(run.from)} – ${formatDay(run.to)}`}
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
        </div>
      )}
    </section>
  );
}
