import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WriteBatch } from 'firebase-admin/firestore';

/**
 * A measuring aid for the bench (never on in production): with FIRESTORE_WRITE_TRACE_DIR set, every
 * committed Firestore write of this process (a document's set, update, create or delete, in a batch, a
 * transaction or a BulkWriter: all commit through WriteBatch) is counted per document path and second,
 * and each finished second is appended to `<dir>/<pid>.jsonl`. The bench adds up the files of all its
 * processes (the ingest server, the workers) to find the busiest document: Firestore sustains about one
 * write a second on one document, and the emulator does not enforce it.
 */

type Counts = Map<number, Map<string, number>>;

let installed = false;

export function installWriteTrace(dir: string): void {
  if (installed) return;
  installed = true;
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.jsonl`);
  const counts: Counts = new Map();
  const proto = WriteBatch.prototype as unknown as {
    _commit: (this: { _ops: Array<{ docPath: string }> }, ...args: unknown[]) => Promise<unknown>;
  };
  const commit = proto._commit;
  proto._commit = async function (...args) {
    const paths = this._ops.map((op) => op.docPath);
    const result = await commit.apply(this, args);
    const second = Math.floor(Date.now() / 1000);
    let bySecond = counts.get(second);
    if (!bySecond) counts.set(second, (bySecond = new Map()));
    for (const docPath of paths) bySecond.set(docPath, (bySecond.get(docPath) ?? 0) + 1);
    return result;
  };
  const flush = (all: boolean) => {
    const now = Math.floor(Date.now() / 1000);
    const lines: string[] = [];
    for (const [second, byPath] of counts) {
      if (!all && second >= now) continue;
      lines.push(JSON.stringify({ second, writes: Object.fromEntries(byPath) }));
      counts.delete(second);
    }
    if (lines.length) appendFileSync(file, `${lines.join('\n')}\n`);
  };
  setInterval(() => flush(false), 1000).unref();
  process.once('exit', () => flush(true));
}

/**
 * The busiest document of the traced processes (all, or those of `pids`) between two times (ms): its path
 * and its writes in its busiest second, all processes' added up.
 */
export function busiestDocument(
  dir: string,
  from = 0,
  to = Infinity,
  pids?: number[],
): { path: string; writes: number; second: number } | null {
  const totals = new Map<string, number>();
  let files: string[];
  try {
    files = readdirSync(dir).filter((name) => name.endsWith('.jsonl') && (!pids || pids.includes(Number(name.slice(0, -6)))));
  } catch {
    return null;
  }
  for (const name of files) {
    for (const line of readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      const { second, writes } = JSON.parse(line) as { second: number; writes: Record<string, number> };
      if (second * 1000 < from || second * 1000 > to) continue;
      for (const [docPath, count] of Object.entries(writes)) {
        const id = `${second}\n${docPath}`;
        totals.set(id, (totals.get(id) ?? 0) + count);
      }
    }
  }
  let best: { path: string; writes: number; second: number } | null = null;
  for (const [id, writes] of totals) {
    if (best && writes <= best.writes) continue;
    const [second, docPath] = id.split('\n');
    best = { path: docPath!, writes, second: Number(second) };
  }
  return best;
}
