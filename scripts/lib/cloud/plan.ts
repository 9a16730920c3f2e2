/**
 * The shape every part of `npm run cloud:setup` has: read what the project holds, compare it with the
 * declarations, and return the change list (create / update / unchanged / problem), each change carrying
 * the call that makes it. `carryOut` prints the list and applies it unless it is a dry run.
 */

export type ChangeKind = 'create' | 'update' | 'unchanged' | 'problem';

export interface Change {
  kind: ChangeKind;
  /** What it is, named in full enough to find it in the console: "scheduler job sync-tick". */
  resource: string;
  /** What changes (or why it is a problem; for an unchanged resource, what it holds). */
  detail?: string;
  /** Something left for a person to do (a secret without a value). */
  todo?: string;
  /** Makes the change; absent for unchanged resources and problems. */
  apply?: () => Promise<unknown>;
}

export interface Part {
  title: string;
  /** Reads the project and returns its changes; nothing is written here. */
  plan: () => Promise<Change[]>;
}

export interface PartReport {
  title: string;
  changes: Change[];
}

export interface CarryOutOptions {
  dryRun: boolean;
  log?: (line: string) => void;
}

const VERB: Record<ChangeKind, [string, string]> = {
  create: ['create', 'would create'],
  update: ['update', 'would update'],
  unchanged: ['unchanged', 'unchanged'],
  problem: ['PROBLEM', 'PROBLEM'],
};

/** One line of the change list. */
export const describe = (change: Change, dryRun: boolean) =>
  `${VERB[change.kind][dryRun ? 1 : 0].padEnd(12)} ${change.resource}${change.detail ? `: ${change.detail}` : ''}`;

/**
 * Plans and applies each part in order (a later part may need what an earlier one created: a role is
 * granted to an account made above). In a dry run nothing is applied, so a later part plans against the
 * project as it is (what "would be created" above reads as missing).
 */
export async function carryOut(parts: Part[], { dryRun, log = () => undefined }: CarryOutOptions): Promise<PartReport[]> {
  const reports: PartReport[] = [];
  for (const part of parts) {
    log(part.title);
    const changes = await part.plan();
    for (const change of changes) {
      log(`  ${describe(change, dryRun)}`);
      if (!dryRun && change.apply) await change.apply();
    }
    reports.push({ title: part.title, changes });
  }
  return reports;
}

/** Counts per kind over every part. */
export function tally(reports: PartReport[]): Record<ChangeKind, number> {
  const counts: Record<ChangeKind, number> = { create: 0, update: 0, unchanged: 0, problem: 0 };
  for (const { changes } of reports) for (const { kind } of changes) counts[kind] += 1;
  return counts;
}
