import type { Connection, Run } from '@/lib/shared/connections/connection';

/** An account as the run pages name it: “Acme Shoes (123)”, or its id. */
export function accountName(connection: Pick<Connection, 'source'>, id: string): string {
  const account = connection.source.accounts.find((candidate) => candidate.id === id);
  return account?.name ? `${account.name} (${id})` : id;
}

/**
 * The errors of a run in words, each sentence once: every account's (“Acme Shoes (123): quota exhausted”),
 * then the run's own unless an account already says it (the ledger copies a job's error to its account and
 * to the run, so printing all three repeated one sentence).
 */
export function errorsOf(run: Run, connection: Pick<Connection, 'source'>): string[] {
  const accounts = Object.entries(run.accounts ?? {}).filter(([, account]) => account.error);
  const said = new Set(accounts.map(([, account]) => account.error));
  const lines = accounts.map(([id, account]) => `${accountName(connection, id)}: ${account.error}`);
  const own = run.error && !said.has(run.error) ? [run.error] : [];
  return [...new Set([...own, ...lines])];
}
