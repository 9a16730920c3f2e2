import { cloudContext, type ContextOptions } from '@/scripts/lib/cloud/context';
import { firestoreIndexesPart, firestoreRulesPart } from '@/scripts/lib/cloud/firestore';
import { iamPart } from '@/scripts/lib/cloud/iam';
import { carryOut, tally, type ChangeKind, type PartReport } from '@/scripts/lib/cloud/plan';
import { pubSubPart } from '@/scripts/lib/cloud/pubsub';
import { schedulerPart, type TickJob } from '@/scripts/lib/cloud/scheduler';
import { secretsPart } from '@/scripts/lib/cloud/secrets';
import { serviceAccountsPart } from '@/scripts/lib/cloud/serviceAccounts';

/**
 * `npm run cloud:setup`: a whole Google Cloud project from the declarations, in an order where each part
 * finds what it needs (topics before the tick job, accounts and secrets before their roles).
 */
export interface ProjectSetupOptions extends ContextOptions {
  log?: (line: string) => void;
  /** Another tick job than TICK_JOB (tests change its schedule). */
  tickJob?: TickJob;
}

export interface ProjectSetupReport {
  parts: PartReport[];
  counts: Record<ChangeKind, number>;
  /** What is left for a person (secrets without a value). */
  todo: string[];
}

export async function setUpProject({ log = () => undefined, tickJob, ...options }: ProjectSetupOptions): Promise<ProjectSetupReport> {
  const context = await cloudContext(options);
  const pubsub = pubSubPart(context.projectId);
  const scheduler = schedulerPart(context, tickJob);
  const indexes = firestoreIndexesPart(context);
  const secrets = secretsPart(context);
  const iam = iamPart(context);
  try {
    const parts = await carryOut([pubsub, scheduler, indexes, firestoreRulesPart(context), serviceAccountsPart(context), secrets, iam], {
      dryRun: context.dryRun,
      log,
    });
    const todo = parts.flatMap(({ changes }) => changes.flatMap(({ todo }) => (todo ? [todo] : [])));
    return { parts, counts: tally(parts), todo };
  } finally {
    await Promise.all([pubsub.close(), scheduler.close(), indexes.close(), secrets.close(), iam.close()]);
  }
}
