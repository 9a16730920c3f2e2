/**
 * `npm run cloud:setup -- --project <id> [--location <region>] [--dry-run]`: the Google Cloud project as
 * code (docs/DEPLOY.md): Pub/Sub, the scheduler tick, Firestore indexes, TTL policies and rules, the secret
 * containers, the services' accounts and their roles. Idempotent; --dry-run prints the change list and
 * changes nothing. Credentials: Application Default Credentials. PUBSUB_EMULATOR_HOST sends Pub/Sub to that
 * emulator, CLOUD_SETUP_API_URL every other API to one origin (the fake: `npx tsx sandbox/gcp.ts`).
 */
import { setUpProject } from '@/scripts/lib/cloud';

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

async function main() {
  const projectId = argument('project');
  if (!projectId || projectId.startsWith('--')) {
    console.error('Usage: npm run cloud:setup -- --project <id> [--location <region, default us-central1>] [--dry-run]');
    process.exit(2);
  }
  const dryRun = process.argv.includes('--dry-run');
  const apiUrl = process.env.CLOUD_SETUP_API_URL;
  console.log(`Project ${projectId}${dryRun ? ' (dry run: nothing is changed)' : ''}${apiUrl ? `, Google APIs at ${apiUrl}` : ''}`);
  const { counts, todo } = await setUpProject({
    projectId,
    location: argument('location'),
    dryRun,
    log: (line) => console.log(line),
  });
  const [create, update] = dryRun ? ['to create', 'to update'] : ['created', 'updated'];
  console.log(
    `\n${counts.create} ${create}, ${counts.update} ${update}, ${counts.unchanged} already as declared, ${counts.problem} problems.` +
      (dryRun ? ' Nothing was changed.' : ''),
  );
  if (todo.length) console.log(`\nLeft to do by hand:\n${todo.map((line) => `  - ${line}`).join('\n')}`);
  if (counts.problem) process.exit(1);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
