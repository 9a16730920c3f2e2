import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { PubSub } from '@google-cloud/pubsub';
import { declaredSettings, readSettings, setUpPubSub } from '@/lib/server/queue/cloudSetup';
import { SUBSCRIPTIONS, subscriptionDeclarations, TOPICS } from '@/lib/server/queue/pubsub';

// `npm run cloud:setup` against the Pub/Sub emulator, in a project of its own: everything is made from the
// declarations, a second run changes nothing, and a drifted setting is set back.
jest.setTimeout(120_000);

const project = `setup-${randomUUID().slice(0, 8)}`;
let client: PubSub;

beforeAll(() => {
  client = new PubSub({ projectId: project });
});
afterAll(() => client.close());

const declarations = () => subscriptionDeclarations((topic) => `projects/${project}/topics/${topic}`);

/** Every subscription's settings as Pub/Sub holds them, beside what is declared. */
async function readBack() {
  return Promise.all(
    declarations().map(async ({ name, topic, options }) => {
      const [metadata] = await client.subscription(name).getMetadata();
      const declared = declaredSettings(options);
      return {
        name,
        topic: metadata.topic,
        wantedTopic: `projects/${project}/topics/${topic}`,
        declared,
        current: readSettings(metadata, declared),
      };
    }),
  );
}

test('the first run makes every topic and subscription with its declared settings; the second changes nothing', async () => {
  const first = await setUpPubSub(project);
  expect(first.created.sort()).toEqual(
    [...Object.values(TOPICS).map((name) => `topic ${name}`), ...Object.values(SUBSCRIPTIONS).map((name) => `subscription ${name}`)].sort(),
  );
  expect(first.problems).toEqual([]);

  const read = await readBack();
  for (const subscription of read) {
    expect(subscription.topic).toBe(subscription.wantedTopic);
    expect(subscription.current).toEqual(subscription.declared);
  }
  // The delivery subscription's dead letters and retry policy really are there (not only "equal" by omission).
  expect(read.find(({ name }) => name === SUBSCRIPTIONS.delivery)!.current).toMatchObject({
    deadLetterTopic: `projects/${project}/topics/${TOPICS.conversionsDead}`,
    maxDeliveryAttempts: expect.any(Number),
    minimumBackoff: expect.any(Number),
    ackDeadlineSeconds: expect.any(Number),
  });

  const second = await setUpPubSub(project);
  expect(second).toEqual({
    created: [],
    updated: [],
    problems: [],
    unchanged: expect.arrayContaining([`subscription ${SUBSCRIPTIONS.delivery}`, `topic ${TOPICS.conversions}`]),
  });
  expect(second.unchanged).toHaveLength(Object.values(TOPICS).length + Object.values(SUBSCRIPTIONS).length);
  expect(await readBack()).toEqual(read);
});

test('a setting changed by hand is set back to its declaration, and only that subscription is touched', async () => {
  await setUpPubSub(project);
  await client.subscription(SUBSCRIPTIONS.syncWorkers).setMetadata({ ackDeadlineSeconds: 77 });
  const lines: string[] = [];
  const report = await setUpPubSub(project, (line) => lines.push(line));
  expect(report.updated).toEqual([`subscription ${SUBSCRIPTIONS.syncWorkers}`]);
  expect(lines).toEqual([expect.stringMatching(/^updated subscription sync-workers: ackDeadlineSeconds 77 → \d+$/)]);
  for (const subscription of await readBack()) expect(subscription.current).toEqual(subscription.declared);
});

test('the command line: --project is required; a run prints what it did and the scheduler command', async () => {
  const script = path.join(__dirname, '../../scripts/cloud-setup.ts');
  const run = (args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], { env: process.env });
  await expect(run([])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: npm run cloud:setup -- --project <id>') });
  const { stdout } = await run(['--project', project]);
  expect(stdout).toContain('0 created, 0 updated, 12 already as declared.');
  expect(stdout).toContain(`gcloud scheduler jobs create pubsub sync-tick --project=${project}`);
});
