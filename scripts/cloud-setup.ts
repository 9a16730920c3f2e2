/**
 * `npm run cloud:setup -- --project <id> [--location <region>]`: creates (or sets back) every Pub/Sub topic
 * and subscription the app and the workers use in a Google Cloud project, from the declarations in
 * lib/server/queue/pubsub.ts; safe to run again. Credentials: Application Default Credentials
 * (`gcloud auth application-default login`); with PUBSUB_EMULATOR_HOST set it talks to that emulator.
 * The Cloud Scheduler tick is printed as a gcloud command: @google-cloud/scheduler is not a dependency.
 */
import { schedulerCommand, setUpPubSub } from '@/lib/server/queue/cloudSetup';

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

async function main() {
  const projectId = argument('project');
  if (!projectId || projectId.startsWith('--')) {
    console.error('Usage: npm run cloud:setup -- --project <id> [--location <region, default us-central1>]');
    process.exit(2);
  }
  const location = argument('location') ?? 'us-central1';
  console.log(
    `Pub/Sub of project ${projectId}${process.env.PUBSUB_EMULATOR_HOST ? ` (emulator ${process.env.PUBSUB_EMULATOR_HOST})` : ''}:`,
  );
  const report = await setUpPubSub(projectId, (line) => console.log(`  ${line}`));
  console.log(`  ${report.created.length} created, ${report.updated.length} updated, ${report.unchanged.length} already as declared.`);
  for (const problem of report.problems) console.error(`  PROBLEM: ${problem}`);
  console.log(
    [
      '',
      'Dead letters need the Pub/Sub service agent (service-<project number>@gcp-sa-pubsub.iam.gserviceaccount.com)',
      'to publish to conversion-events-dead and sync-jobs-dead and to subscribe to the subscriptions that use them',
      '(roles/pubsub.publisher on those topics, roles/pubsub.subscriber on conversion-delivery, sync-workers and',
      'sync-backfill-workers): the console offers it on each subscription’s dead-lettering panel.',
      '',
      'The scheduler tick (once; @google-cloud/scheduler is not installed, so this step is a gcloud command —',
      'if the job exists, run the same with `update` instead of `create`):',
      `  ${schedulerCommand(projectId, location)}`,
    ].join('\n'),
  );
  if (report.problems.length) process.exit(1);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
