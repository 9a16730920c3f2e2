/**
 * Alerts from a connection's runs: a scheduled run or a backfill that ends failed or with some accounts
 * failed opens a `run_failed` incident; the next run that succeeds resolves it. A run that ends waiting
 * for a login says nothing here: the login's own `needs_reauth` alert does.
 */
import { raiseAlert, resolveAlert } from '@/lib/server/alerts';

export interface FinishedRun {
  finished: boolean;
  outcome?: string;
  kind?: string;
}

/** Raises or resolves after a job settled; `settlement` is what settling the job answered. Never throws. */
export async function alertRunSettled(orgId: string, connectionId: string, settlement: FinishedRun): Promise<void> {
  if (!settlement.finished) return;
  const subject = { type: 'connection' as const, id: connectionId };
  const what = settlement.kind === 'backfill' ? 'A backfill' : 'A run';
  if (settlement.outcome === 'failed') {
    await raiseAlert({ orgId, kind: 'run_failed', subject, message: `${what} of this connection failed. The run history says why.` });
  } else if (settlement.outcome === 'partial') {
    await raiseAlert({
      orgId,
      kind: 'run_failed',
      subject,
      message: `${what} of this connection finished, but some accounts failed. The run history says which and why.`,
    });
  } else if (settlement.outcome === 'succeeded') {
    await resolveAlert({ orgId, kind: 'run_failed', subject, message: `${what} of this connection succeeded.` });
  }
}
