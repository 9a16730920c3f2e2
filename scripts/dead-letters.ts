/**
 * `npm run dead-letters`: reads what the dead-letter subscriptions hold into Firestore (as the worker
 * does every DEAD_LETTER_POLL_MS), then prints the messages set aside after 20 attempts, per queue and
 * per organization.
 * `npm run dead-letters -- --replay [--org <orgId>] [--queue conversions|sync]`: publishes them back to
 * the topic each first went to (conversion-events, sync-jobs or sync-backfill-jobs) and forgets them.
 * Against the running dev emulators by default; with FIREBASE_PROJECT_ID and credentials set and no
 * emulator hosts, against that real project.
 */
import { DEV_PORTS, portsFromEnv, stackEnv } from '@/scripts/lib/stack';

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

async function main() {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg.startsWith('--') && !['--replay', '--org', '--queue'].includes(arg));
  const queue = option(args, '--queue');
  if (unknown.length > 0 || (queue !== undefined && queue !== 'conversions' && queue !== 'sync')) {
    throw new Error('Usage: npm run dead-letters [-- --replay] [--org <orgId>] [--queue conversions|sync]');
  }
  const realProject = process.env.FIREBASE_PROJECT_ID && !process.env.FIREBASE_PROJECT_ID.startsWith('demo-');
  if (!realProject) Object.assign(process.env, { ...stackEnv(portsFromEnv(DEV_PORTS)), ...process.env });

  const { drainDeadLetters, replayDeadLetters } = await import('@/lib/server/queue/deadLetters');
  const { countDeadLetters, deadLettersByOrganization } = await import('@/lib/server/repos/deadLetters');
  const orgId = option(args, '--org');
  const stored = await drainDeadLetters();
  if (stored > 0) console.log(`Read ${stored} new message(s) from the dead-letter subscriptions.`);

  if (args.includes('--replay')) {
    const replayed = await replayDeadLetters({ orgId, queue: queue as 'conversions' | 'sync' | undefined });
    console.log(`Replayed ${replayed.messages} message(s) (${replayed.events} event(s) or job(s)) to their original topics.`);
    return;
  }
  const counts = await countDeadLetters(orgId);
  console.log(`Conversion events: ${counts.conversions.messages} message(s), ${counts.conversions.events} event(s)`);
  console.log(`Sync jobs:         ${counts.sync.messages} message(s)`);
  if (!orgId) {
    // An operator at the terminal reads every letter (the app's views stop at a cap).
    const { byOrganization } = await deadLettersByOrganization(Number.POSITIVE_INFINITY);
    for (const row of byOrganization) {
      console.log(`  ${row.org ?? '(no organization)'}: ${row.messages} message(s), ${row.events} event(s) or job(s)`);
    }
  }
  if (counts.conversions.messages + counts.sync.messages > 0) console.log('Send them again with: npm run dead-letters -- --replay');
}

main()
  .then(() => process.exit(0))
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
