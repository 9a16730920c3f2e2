import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { PubSub } from '@google-cloud/pubsub';
import { SUBSCRIPTIONS, subscriptionDeclarations, TOPICS } from '@/lib/server/queue/pubsub';
import { startGcpFake, type GcpFake } from '@/sandbox/gcp';
import { setUpProject, type ProjectSetupReport } from '@/scripts/lib/cloud';
import { accountEmail, GRANTS, SECRETS, SERVICE_ACCOUNTS } from '@/scripts/lib/cloud/access';
import { fixedTokenAuth } from '@/scripts/lib/cloud/context';
import { readIndexesFile } from '@/scripts/lib/cloud/firestore';
import { declaredSettings, readSettings, setUpPubSub } from '@/scripts/lib/cloud/pubsub';
import { TICK_JOB } from '@/scripts/lib/cloud/scheduler';

// `npm run cloud:setup`: Pub/Sub against the emulator, every other Google API against the fake of
// sandbox/gcp.ts (the official clients' REST transport, so the fake sees Google's wire shapes), each test in a
// project of its own: everything is made from the declarations, a second run changes nothing, and a drifted
// setting is set back.
jest.setTimeout(120_000);

const project = `setup-${randomUUID().slice(0, 8)}`;
let client: PubSub;
let fake: GcpFake;

beforeAll(async () => {
  client = new PubSub({ projectId: project });
  fake = await startGcpFake();
});
afterAll(async () => {
  await client.close();
  await fake.close();
});

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

/** Every resource the declarations name, as the change list names it. */
function declaredResources(projectId: string) {
  const file = readIndexesFile();
  return [
    ...Object.values(TOPICS).map((name) => `topic ${name}`),
    ...subscriptionDeclarations((topic) => topic).map(({ name }) => `subscription ${name}`),
    `scheduler job ${TICK_JOB.id}`,
    ...file.indexes.map(({ collectionGroup }) => expect.stringMatching(new RegExp(`^index ${collectionGroup} `))),
    ...file.fieldOverrides.map(({ collectionGroup, fieldPath }) => `field ${collectionGroup}.${fieldPath}`),
    'rules release cloud.firestore',
    ...(['web', 'worker'] as const).map((key) => `service account ${accountEmail(projectId, key)}`),
    ...SECRETS.map(({ name }) => `secret ${name}`),
    ...GRANTS.map(({ role }) => expect.stringContaining(`: ${role} on `)),
  ];
}

const resources = (report: ProjectSetupReport) => report.parts.flatMap(({ changes }) => changes.map(({ resource }) => resource));
const kinds = (report: ProjectSetupReport) => new Set(report.parts.flatMap(({ changes }) => changes.map(({ kind }) => kind)));
const run = (projectId: string, options: Partial<Parameters<typeof setUpProject>[0]> = {}) =>
  setUpProject({ projectId, apiUrl: fake.url, auth: fixedTokenAuth(), ...options });

test('the whole project: a dry run lists every resource and changes nothing; a run makes them; a second run writes nothing', async () => {
  const projectId = `demo-${randomUUID().slice(0, 8)}`;
  const declared = declaredResources(projectId);
  const before = fake.state.mutations.length;

  const dry = await run(projectId, { dryRun: true });
  expect(resources(dry)).toEqual(declared);
  expect(kinds(dry)).toEqual(new Set(['create']));
  expect(fake.state.mutations.length).toBe(before);
  const pubsub = new PubSub({ projectId });
  expect((await pubsub.topic(TOPICS.conversions).exists())[0]).toBe(false);
  expect(dry.todo).toHaveLength(SECRETS.length);

  const first = await run(projectId);
  expect(resources(first)).toEqual(declared);
  expect(first.counts).toEqual({ create: declared.length, update: 0, unchanged: 0, problem: 0 });
  expect((await pubsub.topic(TOPICS.conversions).exists())[0]).toBe(true);
  await pubsub.close();

  // What the fake now holds, read as Google would hand it back.
  const web = `serviceAccount:${accountEmail(projectId, 'web')}`;
  const worker = `serviceAccount:${accountEmail(projectId, 'worker')}`;
  expect(fake.state.serviceAccounts.get(accountEmail(projectId, 'web'))).toMatchObject({ displayName: SERVICE_ACCOUNTS.web.displayName });
  expect(fake.state.jobs.get(`projects/${projectId}/locations/us-central1/jobs/sync-tick`)).toMatchObject({
    schedule: '* * * * *',
    pubsubTarget: { topicName: `projects/${projectId}/topics/${TOPICS.syncTicks}`, data: Buffer.from('{}').toString('base64') },
  });
  const projectPolicy = fake.state.projectPolicies.get(projectId)!;
  expect(projectPolicy.bindings).toEqual(
    expect.arrayContaining([
      { role: 'roles/datastore.user', members: [web, worker] },
      { role: 'roles/firebaseauth.admin', members: [web] },
    ]),
  );
  expect(fake.state.pubsubPolicies.get(`projects/${projectId}/subscriptions/${SUBSCRIPTIONS.delivery}`)!.bindings).toEqual([
    {
      role: 'roles/pubsub.subscriber',
      members: [worker, expect.stringMatching(/^serviceAccount:service-\d+@gcp-sa-pubsub\.iam\.gserviceaccount\.com$/)],
    },
  ]);
  const stripeSecret = [...fake.state.secrets.values()].find(({ secret }) => String(secret.name).endsWith('/secrets/STRIPE_SECRET_KEY'))!;
  expect(stripeSecret.policy.bindings).toEqual([{ role: 'roles/secretmanager.secretAccessor', members: [web] }]);
  expect(stripeSecret.versions).toEqual([]);
  const ttl = [...fake.state.fields.entries()].filter(([, field]) => field.ttlConfig).map(([name]) => name.split('/collectionGroups/')[1]);
  expect(ttl).toEqual(expect.arrayContaining(['oauth_states/fields/expires_at', 'notifications/fields/expires_at']));
  expect(ttl).toHaveLength(readIndexesFile().fieldOverrides.filter((override) => override.ttl).length);

  fake.addSecretVersion(projectId, 'STRIPE_SECRET_KEY');
  const writes = fake.state.mutations.length;
  const second = await run(projectId);
  expect(second.counts).toEqual({ create: 0, update: 0, unchanged: declared.length, problem: 0 });
  expect(fake.state.mutations.length).toBe(writes);
  expect(second.todo).toHaveLength(SECRETS.length - 1);
  expect(second.todo.join('\n')).not.toContain('STRIPE_SECRET_KEY ');
});

test('a changed declaration or a change by hand is set back, and only that is written', async () => {
  const projectId = `demo-${randomUUID().slice(0, 8)}`;
  await run(projectId);
  const web = `serviceAccount:${accountEmail(projectId, 'web')}`;
  const policy = fake.state.projectPolicies.get(projectId)!;
  policy.bindings = policy.bindings!.filter(({ role }) => role !== 'roles/firebaseauth.admin');
  const writes = fake.state.mutations.length;

  const lines: string[] = [];
  const report = await run(projectId, { tickJob: { ...TICK_JOB, schedule: '*/5 * * * *' }, log: (line) => lines.push(line) });
  expect(report.counts).toMatchObject({ create: 1, update: 1, problem: 0 });
  expect(lines).toContain(`  update       scheduler job sync-tick: schedule '* * * * *' → '*/5 * * * *'`);
  expect(lines).toContainEqual(expect.stringMatching(/^ {2}create {7}sb-web: roles\/firebaseauth\.admin on the project/));
  expect(fake.state.jobs.get(`projects/${projectId}/locations/us-central1/jobs/sync-tick`)).toMatchObject({ schedule: '*/5 * * * *' });
  expect(fake.state.projectPolicies.get(projectId)!.bindings).toContainEqual({ role: 'roles/firebaseauth.admin', members: [web] });
  expect(fake.state.mutations.slice(writes)).toEqual([
    `PATCH /v1/projects/${projectId}/locations/us-central1/jobs/sync-tick`,
    `POST /v3/projects/${projectId}:setIamPolicy`,
  ]);
});

test('the command line: --project is required; --dry-run lists the changes and makes none; a run then does them', async () => {
  const projectId = `demo-${randomUUID().slice(0, 8)}`;
  const script = path.join(__dirname, '../../scripts/cloud-setup.ts');
  const env = { ...process.env, CLOUD_SETUP_API_URL: fake.url };
  const cli = (args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', script, ...args], { env });
  await expect(cli([])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Usage: npm run cloud:setup -- --project <id>') });
  const before = fake.state.mutations.length;
  const total = declaredResources(projectId).length;
  const dry = await cli(['--project', projectId, '--dry-run']);
  expect(dry.stdout).toContain(`Project ${projectId} (dry run: nothing is changed)`);
  expect(dry.stdout).toContain('  would create scheduler job sync-tick');
  expect(dry.stdout).toContain(`  would create service account sb-web@${projectId}.iam.gserviceaccount.com`);
  expect(dry.stdout).toContain(`${total} to create, 0 to update, 0 already as declared, 0 problems. Nothing was changed.`);
  expect(dry.stdout).toContain(`gcloud secrets versions add CREDENTIALS_ENCRYPTION_KEY --project=${projectId} --data-file=-`);
  expect(fake.state.mutations.length).toBe(before);
  expect((await cli(['--project', projectId])).stdout).toContain(`${total} created, 0 updated, 0 already as declared, 0 problems.`);
  expect((await cli(['--project', projectId])).stdout).toContain(`0 created, 0 updated, ${total} already as declared, 0 problems.`);
});
