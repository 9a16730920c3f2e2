/**
 * Watches one run of a connection in real time (a backfill's progress bar), through the Firestore
 * rules that let an organization's members read its runs. The Firestore SDK loads only here.
 */

export interface RunProgress {
  outcome: string;
  jobsTotal: number;
  jobsDone: number;
  rowsWritten: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
}

export async function watchRun(
  orgId: string,
  connectionId: string,
  runId: string,
  onChange: (progress: RunProgress) => void,
  onError: () => void = () => undefined,
): Promise<() => void> {
  const [{ doc, onSnapshot }, { clientDb }, { clientAuth }] = await Promise.all([
    import('firebase/firestore'),
    import('@/lib/client/firebase/firestore'),
    import('@/lib/client/firebase/auth'),
  ]);
  await clientAuth().authStateReady();
  return onSnapshot(
    doc(clientDb(), 'organizations', orgId, 'connections', connectionId, 'runs', runId),
    (snapshot) => {
      if (!snapshot.exists()) return;
      const millis = (value: unknown) =>
        value && typeof (value as { toMillis?: unknown }).toMillis === 'function' ? (value as { toMillis: () => number }).toMillis() : null;
      onChange({
        outcome: snapshot.get('outcome'),
        jobsTotal: snapshot.get('jobs_total') ?? 0,
        jobsDone: snapshot.get('jobs_done') ?? 0,
        rowsWritten: snapshot.get('rows_written') ?? 0,
        startedAt: millis(snapshot.get('started_at')),
        finishedAt: millis(snapshot.get('finished_at')),
        error: snapshot.get('error') ?? null,
      });
    },
    (error) => {
      console.error('[runs] could not watch the run', error.code);
      onError();
    },
  );
}
