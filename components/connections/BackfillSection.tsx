import Link from 'next/link';
import { useEffect, useEffectEvent, useState, type FormEvent } from 'react';
import styles from '@/components/connections/connections.module.css';
import { subscriptionPath } from '@/components/connections/paths';
import { durationInWords, formatDay, formatNumber } from '@/components/connections/shared';
import { FailureAlert, fieldErrorsOf, firstError } from '@/components/ui/failures';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';
import TextField from '@/components/ui/TextField';
import SectionTitle from '@/components/ui/SectionTitle';
import { watchRun, type RunProgress } from '@/lib/client/firebase/runs';
import { type Run, plansWithBackfill } from '@/lib/shared/connections/connection';
import { HISTORY_LABELS } from '@/lib/shared/integrations/platforms';
import { addDays, chunksOf, lookbackWindow, toDay } from '@/lib/shared/connections/windows';
import { useCancelBackfillMutation, useStartBackfillMutation, type ConnectionDetail } from '@/store/connectionsApi';

/** Live progress of one run through the Firestore listener; null until its first snapshot. */
function useRunProgress(
  orgId: string,
  connectionId: string,
  runId: string | null,
  onFinished: () => void,
): { progress: RunProgress | null; listening: boolean } {
  const [state, setState] = useState<{ runId: string; progress: RunProgress } | null>(null);
  const [failedRunId, setFailedRunId] = useState<string | null>(null);
  const finish = useEffectEvent(onFinished);
  useEffect(() => {
    if (!runId) return;
    let stop: (() => void) | null = null;
    let closed = false;
    let finished = false;
    void watchRun(
      orgId,
      connectionId,
      runId,
      (progress) => {
        setState({ runId, progress });
        // The history and the connection change when it ends: refresh them once.
        if (progress.outcome !== 'running' && !finished) {
          finished = true;
          finish();
        }
      },
      () => setFailedRunId(runId),
    )
      .then((unsubscribe) => {
        if (closed) unsubscribe();
        else stop = unsubscribe;
      })
      .catch(() => setFailedRunId(runId));
    return () => {
      closed = true;
      stop?.();
    };
  }, [orgId, connectionId, runId]);
  return { progress: state && state.runId === runId ? state.progress : null, listening: failedRunId !== runId };
}

/** The run from the detail in the listener's shape: shown until (or if) the listener answers. */
function progressOf(run: Run | undefined): RunProgress | null {
  if (!run) return null;
  return {
    outcome: run.outcome,
    jobsTotal: run.jobsTotal,
    jobsDone: run.jobsDone,
    rowsWritten: run.rowsWritten,
    startedAt: new Date(run.startedAt).getTime(),
    finishedAt: run.finishedAt ? new Date(run.finishedAt).getTime() : null,
    error: run.error,
  };
}

/** “about 3 min left” from the pace so far; nothing to say before the first chunk is done. */
function timeLeft(progress: RunProgress, now: number): string {
  if (!progress.startedAt || progress.jobsDone === 0 || progress.jobsTotal === 0) return 'estimating the time left';
  const elapsed = Math.max(0, now - progress.startedAt);
  const remaining = (elapsed / progress.jobsDone) * (progress.jobsTotal - progress.jobsDone);
  if (remaining < 60_000) return 'less than a minute left';
  return `about ${Math.round(remaining / 60_000)} min left`;
}

function Progress({ progress, now }: { progress: RunProgress; now: number }) {
  const percent = progress.jobsTotal > 0 ? Math.floor((progress.jobsDone / progress.jobsTotal) * 100) : 0;
  const counts = `${progress.jobsDone} of ${progress.jobsTotal} chunks · ${formatNumber(progress.rowsWritten)} rows`;
  const text = progress.outcome === 'running' ? `${counts} · ${timeLeft(progress, now)}` : counts;
  return (
    <div className="stack" style={{ gap: '0.4rem' }}>
      <div
        className={styles.progress}
        role="progressbar"
        aria-label="Backfill progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent} % · ${text}`}
      >
        <div className={styles.progressBar} style={{ width: `${percent}%` }} />
      </div>
      <p className="muted" style={{ margin: 0 }} aria-live="polite">
        {percent} % · {text}
      </p>
    </div>
  );
}

/** How the last backfill ended, in words. */
function Ended({ progress, run }: { progress: RunProgress; run: Run | undefined }) {
  const rows = `${formatNumber(progress.rowsWritten)} rows`;
  const days = run ? ` from ${formatDay(run.from)} to ${formatDay(run.to)}` : '';
  const took = progress.startedAt && progress.finishedAt ? ` in ${durationInWords(progress.finishedAt - progress.startedAt)}` : '';
  if (progress.outcome === 'succeeded') {
    return (
      <p role="status" className="alert alert--success" style={{ margin: 0 }}>
        <strong>Backfill complete:</strong> {rows} written{days}
        {took}.
      </p>
    );
  }
  if (progress.outcome === 'needs_reauth') {
    return (
      <p role="status" className="alert alert--info" style={{ margin: 0 }}>
        The backfill is paused after {progress.jobsDone} of {progress.jobsTotal} chunks ({rows} written): a login needs reconnecting.
        Reconnect it and the backfill picks up the chunks that are left.
      </p>
    );
  }
  if (progress.outcome === 'cancelled') {
    return (
      <p role="status" className="alert alert--info" style={{ margin: 0 }}>
        The last backfill was cancelled after {progress.jobsDone} of {progress.jobsTotal} chunks ({rows} written).
      </p>
    );
  }
  return (
    <p role="alert" className="alert alert--error" style={{ margin: 0 }}>
      The last backfill ended with {progress.outcome === 'partial' ? 'some accounts failing' : 'an error'} after {progress.jobsDone} of{' '}
      {progress.jobsTotal} chunks ({rows}). {progress.error ?? 'The run history says which accounts failed and why.'}
    </p>
  );
}

/**
 * Historical backfill: pick the first day (no earlier than the platform keeps), see how many chunks it
 * takes, start it, and watch its progress live; cancel with a confirmation. Plans without backfills
 * see the form disabled and which plan has it.
 */
export default function BackfillSection({
  orgId,
  detail,
  canEdit,
  now,
  onChanged,
}: {
  orgId: string;
  detail: ConnectionDetail;
  canEdit: boolean;
  now: number;
  onChanged: () => void;
}) {
  const { connection, backfill } = detail;
  const platform = connection.source.platform;
  const [from, setFrom] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [start, starting] = useStartBackfillMutation();
  const [cancel, cancelling] = useCancelBackfillMutation();
  const runId = connection.backfillRunId;
  const { progress: live, listening } = useRunProgress(orgId, connection.id, runId, onChanged);
  const run = detail.runs.find((candidate) => candidate.id === runId);
  const progress = live ?? progressOf(run);
  const running = Boolean(runId) && (progress?.outcome ?? 'running') === 'running';
  // Paused for a dead login: Reconnect resumes it; it may also be cancelled.
  const waiting = Boolean(runId) && progress?.outcome === 'needs_reauth';
  // Without the live listener (it failed), the page's detail is read again every few seconds instead.
  const refresh = useEffectEvent(onChanged);
  useEffect(() => {
    if (!running || listening) return;
    const timer = setInterval(() => refresh(), 5000);
    return () => clearInterval(timer);
  }, [running, listening]);
  const errors = fieldErrorsOf(starting.error);
  const failure = starting.error && Object.keys(errors).length === 0 ? starting.error : null;
  const disabled = !backfill.allowed || !canEdit || running;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!from) return;
    const result = await start({ orgId, id: connection.id, from });
    if (!('error' in result)) setFrom('');
  }

  async function confirmCancel() {
    const result = await cancel({ orgId, id: connection.id });
    if (!('error' in result)) setConfirming(false);
  }

  return (
    <section className="stack" aria-labelledby="backfill-title">
      <SectionTitle id="backfill-title">Historical backfill</SectionTitle>
      <p className="muted" style={{ margin: 0 }}>
        Scheduled runs keep the last {connection.lookbackDays} days. A backfill reads the days before them once, a month at a time per
        account. {HISTORY_LABELS[platform]}
      </p>
      {!backfill.allowed && (
        <p className="alert alert--info" style={{ margin: 0 }}>
          Historical backfills are included in the {plansWithBackfill()} plan. <Link href={subscriptionPath(orgId)}>See the plans</Link>
        </p>
      )}
      {runId && progress && (running || progress.outcome === 'succeeded') && <Progress progress={progress} now={now} />}
      {runId && progress && !running && <Ended progress={progress} run={run} />}
      {(running || waiting) && canEdit && (
        <div>
          <Button type="button" variant="secondary" className="button--small" onClick={() => setConfirming(true)}>
            Cancel backfill
          </Button>
          <ConfirmDialog
            open={confirming}
            title="Cancel the backfill?"
            confirmLabel="Cancel backfill"
            busy={cancelling.isLoading}
            onConfirm={() => void confirmCancel()}
            onCancel={() => setConfirming(false)}
          >
            <p>The chunks already written stay in the destination; the rest are not read. You can start a new backfill later.</p>
            {cancelling.error ? <FailureAlert orgId={orgId} error={cancelling.error} fallback="Could not cancel the backfill." /> : null}
          </ConfirmDialog>
        </div>
      )}
      {!running && !waiting && (
        <BackfillForm
          detail={detail}
          now={now}
          from={from}
          onFrom={setFrom}
          disabled={disabled}
          busy={starting.isLoading}
          error={firstError(errors, 'from')}
          onSubmit={submit}
        />
      )}
      {failure && <FailureAlert orgId={orgId} error={failure} fallback="Could not start the backfill." />}
    </section>
  );
}

function BackfillForm({
  detail,
  now,
  from,
  onFrom,
  disabled,
  busy,
  error,
  onSubmit,
}: {
  detail: ConnectionDetail;
  now: number;
  from: string;
  onFrom: (day: string) => void;
  disabled: boolean;
  busy: boolean;
  error?: string;
  onSubmit: (event: FormEvent) => void;
}) {
  const { connection, backfill } = detail;
  // The same window the server reads: up to the day before the scheduled runs' lookback.
  const to = addDays(lookbackWindow(connection.lookbackDays, new Date(now)).from, -1);
  const yesterday = addDays(toDay(now), -1);
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(from) && from >= backfill.earliest;
  const window = valid ? { from, to: to < from ? from : to } : null;
  const chunks = window ? chunksOf(window).length : 0;
  const accounts = connection.source.accounts.length;
  return (
    <form className="stack" onSubmit={onSubmit} aria-label="Start a backfill" noValidate>
      <div className={styles.row} style={{ alignItems: 'flex-end' }}>
        <TextField
          id="backfill-from"
          label="Backfill from"
          type="date"
          min={backfill.earliest}
          max={yesterday}
          value={from}
          onChange={(event) => onFrom(event.target.value)}
          disabled={disabled}
          error={error}
          aria-describedby={error ? 'backfill-earliest backfill-from-error' : 'backfill-earliest'}
        />
        <div style={{ flex: 'none', minWidth: 0, paddingBottom: '0.1rem' }}>
          <Button type="submit" disabled={disabled || !window} busy={busy}>
            Start backfill
          </Button>
        </div>
      </div>
      <p id="backfill-earliest" className={`muted ${styles.hint}`}>
        Earliest day: {formatDay(backfill.earliest)}.
      </p>
      {window && (
        <p className="muted" style={{ margin: 0 }} data-testid="backfill-preview" aria-live="polite">
          {formatDay(window.from)} to {formatDay(window.to)}: {chunks} chunk{chunks === 1 ? '' : 's'} of up to 30 days
          {accounts > 1 ? ` for each of ${accounts} accounts (${chunks * accounts} platform queries)` : ''}.
        </p>
      )}
    </form>
  );
}
