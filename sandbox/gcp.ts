/**
 * A fake of the Google Cloud control-plane APIs `npm run cloud:setup` calls, on one local origin
 * (CLOUD_SETUP_API_URL), answering the JSON the official clients' REST transport sends and expects:
 *
 *   IAM                  /v1/projects/{p}/serviceAccounts[/{email}]                       (iam.googleapis.com)
 *   Resource Manager     /v3/projects/{p}, /v3/projects/{p}:getIamPolicy|setIamPolicy    (cloudresourcemanager)
 *   Secret Manager       /v1/projects/{p}/secrets[/{s}[/versions|:getIamPolicy|:setIamPolicy]]
 *   Pub/Sub IAM          /v1/projects/{p}/topics|subscriptions/{name}:getIamPolicy|setIamPolicy (topics and
 *                        subscriptions themselves live in the Pub/Sub emulator; their policies live here)
 *   Cloud Scheduler      /v1/projects/{p}/locations/{l}/jobs[/{j}]
 *   Firestore Admin      /v1/projects/{p}/databases/{d}/collectionGroups/{g}/indexes, …/fields/{f}
 *   Firebase Rules       /v1/projects/{p}/rulesets[/{id}], /v1/projects/{p}/releases[/{name}]
 *
 * State is in memory. Errors are google.rpc.Status JSON ({error: {code, message, status}}) with the
 * statuses Google answers: 404 NOT_FOUND, 409 ALREADY_EXISTS / ABORTED (a stale etag), 400
 * INVALID_ARGUMENT (e.g. a binding for a service account that does not exist), 401 without a bearer token.
 * Every change is counted (`mutations`), so a test can say a second run wrote nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, readBody, serve, type Served } from '@/sandbox/server';

type Json = Record<string, unknown>;

export interface Binding {
  role: string;
  members: string[];
}
export interface Policy {
  version?: number;
  etag?: string;
  bindings?: Binding[];
}

export interface GcpFake extends Served {
  state: GcpState;
  /** Adds an enabled version to a secret (as `gcloud secrets versions add` would); the value is not kept. */
  addSecretVersion: (project: string, secret: string) => void;
}

export interface GcpState {
  serviceAccounts: Map<string, Json>;
  projectPolicies: Map<string, Policy>;
  /** Secret Manager secrets by full name, with their versions and policy. */
  secrets: Map<string, { secret: Json; versions: Json[]; policy: Policy }>;
  /** Pub/Sub topic and subscription policies by full resource name. */
  pubsubPolicies: Map<string, Policy>;
  jobs: Map<string, Json>;
  indexes: Map<string, Json>;
  fields: Map<string, Json>;
  rulesets: Map<string, Json>;
  releases: Map<string, Json>;
  /** Each request that changed something: "METHOD path". */
  mutations: string[];
}

export const emptyGcpState = (): GcpState => ({
  serviceAccounts: new Map(),
  projectPolicies: new Map(),
  secrets: new Map(),
  pubsubPolicies: new Map(),
  jobs: new Map(),
  indexes: new Map(),
  fields: new Map(),
  rulesets: new Map(),
  releases: new Map(),
  mutations: [],
});

class Status extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

const notFound = (what: string) => new Status(404, 'NOT_FOUND', `${what} not found.`);
const alreadyExists = (what: string) => new Status(409, 'ALREADY_EXISTS', `${what} already exists.`);
const invalid = (message: string) => new Status(400, 'INVALID_ARGUMENT', message);

/** A project's number, stable per id (Resource Manager names projects by number). */
export const projectNumber = (projectId: string) => String(parseInt(createHash('sha256').update(projectId).digest('hex').slice(0, 10), 16));

const now = () => new Date().toISOString();
const etagOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64').slice(0, 12);

/** The field mask's paths in camelCase (the REST transport sends snake_case; both are accepted). */
const maskPaths = (url: URL, body: Json): string[] => {
  const mask = url.searchParams.get('updateMask') ?? (typeof body.updateMask === 'string' ? body.updateMask : '');
  return mask
    .split(',')
    .filter(Boolean)
    .map((path) => path.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()));
};

/** Checks a policy's members the way IAM does: a project's service account must exist. */
function checkMembers(state: GcpState, policy: Policy) {
  for (const binding of policy.bindings ?? []) {
    if (!binding.role?.startsWith('roles/')) throw invalid(`Role ${binding.role} is not supported.`);
    for (const member of binding.members ?? []) {
      const account = /^serviceAccount:(.+@(.+)\.iam\.gserviceaccount\.com)$/.exec(member);
      if (!account) {
        if (!/^(serviceAccount|user|group|domain):.+/.test(member)) throw invalid(`Invalid member ${member}.`);
        continue;
      }
      if (account[2]!.startsWith('gcp-sa-')) continue; // a Google service agent
      if (!state.serviceAccounts.has(account[1]!)) throw invalid(`Service account ${account[1]} does not exist.`);
    }
  }
}

/** setIamPolicy: a stale etag is refused (ABORTED), as IAM's read-modify-write requires. */
function setPolicy(state: GcpState, current: Policy | undefined, body: Json): Policy {
  const policy = (body.policy ?? {}) as Policy;
  if (policy.etag && current?.etag && policy.etag !== current.etag)
    throw new Status(409, 'ABORTED', 'There were concurrent policy changes.');
  checkMembers(state, policy);
  const bindings = (policy.bindings ?? []).filter((binding) => binding.members?.length);
  const next: Policy = { version: policy.version ?? 1, bindings };
  next.etag = etagOf(next);
  return next;
}

const emptyPolicy = (): Policy => ({ version: 1, etag: 'ACAB', bindings: [] });

/** A composite index as Firestore lists it: `__name__` appended in the last field's direction. */
function storedIndex(name: string, body: Json): Json {
  const fields = [...((body.fields as Json[]) ?? [])];
  if (!fields.length) throw invalid('An index needs at least one field.');
  if (fields.at(-1)!.fieldPath !== '__name__') {
    const last = fields.filter((field) => field.order).at(-1);
    fields.push({ fieldPath: '__name__', order: last?.order ?? 'ASCENDING' });
  }
  return { name, queryScope: body.queryScope ?? 'COLLECTION', apiScope: 'ANY_API', fields, state: 'READY', density: 'SPARSE_ALL' };
}

const sameIndex = (a: Json, b: Json) => a.queryScope === b.queryScope && JSON.stringify(a.fields) === JSON.stringify(b.fields);

/** A field never configured: it inherits the database's default single-field indexes. */
const inheritedField = (name: string, database: string): Json => ({
  name,
  indexConfig: {
    usesAncestorConfig: true,
    ancestorField: `${database}/collectionGroups/__default__/fields/*`,
    indexes: [
      { queryScope: 'COLLECTION', fields: [{ fieldPath: '*', order: 'ASCENDING' }], state: 'READY' },
      { queryScope: 'COLLECTION', fields: [{ fieldPath: '*', order: 'DESCENDING' }], state: 'READY' },
      { queryScope: 'COLLECTION', fields: [{ fieldPath: '*', arrayConfig: 'CONTAINS' }], state: 'READY' },
    ],
  },
});

const operation = (database: string) => ({ name: `${database}/operations/${randomUUID().replace(/-/g, '')}`, done: false });

async function route(state: GcpState, req: IncomingMessage, url: URL): Promise<{ status?: number; body: unknown }> {
  const method = req.method ?? 'GET';
  const path = decodeURIComponent(url.pathname);
  const raw = method === 'GET' || method === 'DELETE' ? '' : await readBody(req);
  let body: Json = {};
  if (raw) {
    try {
      body = JSON.parse(raw) as Json;
    } catch {
      throw invalid('Invalid JSON payload received.');
    }
  }
  const changed = () => state.mutations.push(`${method} ${path}`);
  let match: RegExpExecArray | null;

  // IAM: service accounts.
  if ((match = /^\/v1\/projects\/([^/]+)\/serviceAccounts$/.exec(path)) && method === 'POST') {
    const project = match[1]!;
    const accountId = String(body.accountId ?? '');
    if (!/^[a-z]([-a-z0-9]{4,28}[a-z0-9])$/.test(accountId)) throw invalid(`Invalid account id ${accountId}.`);
    const email = `${accountId}@${project}.iam.gserviceaccount.com`;
    if (state.serviceAccounts.has(email)) throw alreadyExists(`Service account ${accountId}`);
    const given = (body.serviceAccount ?? {}) as Json;
    const account = {
      name: `projects/${project}/serviceAccounts/${email}`,
      projectId: project,
      uniqueId: projectNumber(email),
      email,
      displayName: given.displayName ?? '',
      description: given.description ?? '',
      etag: 'MDEwMjE5MjA=',
      oauth2ClientId: projectNumber(email),
    };
    state.serviceAccounts.set(email, account);
    changed();
    return { body: account };
  }
  if ((match = /^\/v1\/projects\/([^/]+)\/serviceAccounts\/([^/:]+)$/.exec(path))) {
    const account = state.serviceAccounts.get(match[2]!);
    if (!account) throw notFound(`Service account projects/${match[1]}/serviceAccounts/${match[2]}`);
    if (method === 'GET') return { body: account };
    if (method === 'PATCH') {
      const given = (body.serviceAccount ?? {}) as Json;
      for (const path of maskPaths(url, body)) if (path === 'displayName' || path === 'description') account[path] = given[path] ?? '';
      changed();
      return { body: account };
    }
  }

  // Resource Manager: the project and its policy.
  if ((match = /^\/v3\/projects\/([^/:]+)(:getIamPolicy|:setIamPolicy)?$/.exec(path))) {
    const project = match[1]!;
    if (!match[2] && method === 'GET')
      return { body: { name: `projects/${projectNumber(project)}`, projectId: project, state: 'ACTIVE', displayName: project } };
    if (match[2] === ':getIamPolicy' && method === 'POST') return { body: state.projectPolicies.get(project) ?? emptyPolicy() };
    if (match[2] === ':setIamPolicy' && method === 'POST') {
      const policy = setPolicy(state, state.projectPolicies.get(project), body);
      state.projectPolicies.set(project, policy);
      changed();
      return { body: policy };
    }
  }

  // Secret Manager.
  if ((match = /^\/v1\/projects\/([^/]+)\/secrets$/.exec(path)) && method === 'POST') {
    const secretId = url.searchParams.get('secretId') ?? '';
    if (!/^[\w-]{1,255}$/.test(secretId)) throw invalid(`Invalid secret id ${secretId}.`);
    const name = `projects/${projectNumber(match[1]!)}/secrets/${secretId}`;
    if (state.secrets.has(name)) throw alreadyExists(`Secret [${name}]`);
    const replication = body.replication as Json | undefined;
    if (!replication?.automatic && !replication?.userManaged) throw invalid('Secret.replication is required.');
    const secret = { name, replication, createTime: now(), labels: body.labels ?? {}, etag: `"${etagOf(name)}"` };
    state.secrets.set(name, { secret, versions: [], policy: emptyPolicy() });
    changed();
    return { body: secret };
  }
  if ((match = /^\/v1\/projects\/([^/]+)\/secrets\/([^/:]+)(\/versions|:getIamPolicy|:setIamPolicy)?$/.exec(path))) {
    const name = `projects/${projectNumber(match[1]!)}/secrets/${match[2]}`;
    const entry = state.secrets.get(name);
    if (!entry) throw notFound(`Secret [${name}]`);
    if (!match[3] && method === 'GET') return { body: entry.secret };
    if (match[3] === '/versions' && method === 'GET') {
      const enabledOnly = /state\s*:\s*ENABLED/.test(url.searchParams.get('filter') ?? '');
      const versions = entry.versions.filter((version) => !enabledOnly || version.state === 'ENABLED');
      return { body: versions.length ? { versions, totalSize: versions.length } : {} };
    }
    if (match[3] === ':getIamPolicy' && method === 'GET') return { body: entry.policy };
    if (match[3] === ':setIamPolicy' && method === 'POST') {
      entry.policy = setPolicy(state, entry.policy, body);
      changed();
      return { body: entry.policy };
    }
  }

  // Pub/Sub resource policies.
  // (Pub/Sub reads a policy with GET, as Secret Manager does; Resource Manager with POST.)
  if ((match = /^\/v1\/(projects\/[^/]+\/(?:topics|subscriptions)\/[^/:]+):(getIamPolicy|setIamPolicy)$/.exec(path))) {
    const resource = match[1]!;
    if (match[2] === 'getIamPolicy' && method === 'GET') return { body: state.pubsubPolicies.get(resource) ?? emptyPolicy() };
    if (method !== 'POST') throw notFound(`${method} ${path}`);
    const policy = setPolicy(state, state.pubsubPolicies.get(resource), body);
    state.pubsubPolicies.set(resource, policy);
    changed();
    return { body: policy };
  }

  // Cloud Scheduler.
  if ((match = /^\/v1\/(projects\/[^/]+\/locations\/[^/]+)\/jobs$/.exec(path)) && method === 'POST') {
    const name = String(body.name ?? '');
    if (!name.startsWith(`${match[1]}/jobs/`)) throw invalid(`Job name ${name} is not under ${match[1]}.`);
    if (state.jobs.has(name)) throw alreadyExists(`Job ${name}`);
    if (!body.schedule) throw invalid('Job.schedule is required.');
    if (!body.pubsubTarget && !body.httpTarget && !body.appEngineHttpTarget) throw invalid('A job needs a target.');
    const job = { ...body, state: 'ENABLED', userUpdateTime: now(), timeZone: body.timeZone || 'Etc/UTC' };
    state.jobs.set(name, job);
    changed();
    return { body: job };
  }
  if ((match = /^\/v1\/(projects\/[^/]+\/locations\/[^/]+\/jobs\/[^/]+)$/.exec(path))) {
    const job = state.jobs.get(match[1]!);
    if (!job) throw notFound(`Job ${match[1]}`);
    if (method === 'GET') return { body: job };
    if (method === 'PATCH') {
      const paths = maskPaths(url, body);
      for (const key of paths.length ? paths : Object.keys(body)) if (key !== 'name') job[key] = body[key];
      job.userUpdateTime = now();
      changed();
      return { body: job };
    }
  }

  // Firestore Admin: composite indexes and single-field settings (indexes, TTL).
  if ((match = /^\/v1\/(projects\/[^/]+\/databases\/[^/]+)\/collectionGroups\/([^/]+)\/indexes$/.exec(path))) {
    const [, database, group] = match as unknown as [string, string, string];
    if (method === 'GET') {
      const prefix = `${database}/collectionGroups/${group === '-' ? '' : `${group}/`}`;
      return { body: { indexes: [...state.indexes.values()].filter((index) => String(index.name).startsWith(prefix)) } };
    }
    if (method === 'POST') {
      if (group === '-') throw invalid('Name the collection group.');
      const index = storedIndex(`${database}/collectionGroups/${group}/indexes/${randomUUID().replace(/-/g, '').slice(0, 16)}`, body);
      const groupPrefix = `${database}/collectionGroups/${group}/`;
      const twin = [...state.indexes.values()].some((other) => String(other.name).startsWith(groupPrefix) && sameIndex(other, index));
      if (twin) throw alreadyExists('Index');
      state.indexes.set(String(index.name), index);
      changed();
      return { body: operation(database) };
    }
  }
  if ((match = /^\/v1\/(projects\/[^/]+\/databases\/[^/]+)\/collectionGroups\/([^/]+)\/fields\/([^/]+)$/.exec(path))) {
    const database = match[1]!;
    const name = path.slice(4);
    if (method === 'GET') return { body: state.fields.get(name) ?? inheritedField(name, database) };
    if (method === 'PATCH') {
      const field = structuredClone(state.fields.get(name) ?? inheritedField(name, database));
      const paths = maskPaths(url, body);
      if (!paths.length) throw invalid('updateMask is required.');
      for (const key of paths) {
        if (key === 'indexConfig') {
          const indexes = (((body.indexConfig as Json | undefined)?.indexes as Json[]) ?? []).map((index) => ({
            ...index,
            state: 'READY',
          }));
          field.indexConfig = { indexes, usesAncestorConfig: false };
        } else if (key === 'ttlConfig') {
          if (body.ttlConfig) field.ttlConfig = { state: 'ACTIVE' };
          else delete field.ttlConfig;
        } else throw invalid(`Unknown field mask path ${key}.`);
      }
      state.fields.set(name, field);
      changed();
      return { body: operation(database) };
    }
  }

  // Firebase Rules.
  if ((match = /^\/v1\/projects\/([^/]+)\/rulesets$/.exec(path)) && method === 'POST') {
    const files = ((body.source as Json | undefined)?.files as Json[] | undefined) ?? [];
    if (!files.length || files.some((file) => !file.name || typeof file.content !== 'string' || !file.content.trim()))
      throw invalid('Ruleset.source needs at least one named file with content.');
    if (!files.some((file) => /service\s+cloud\.firestore/.test(String(file.content)))) throw invalid('Rules compile error: no service.');
    const ruleset = {
      name: `projects/${match[1]}/rulesets/${randomUUID()}`,
      source: { files: files.map((file) => ({ ...file, fingerprint: etagOf(file.content) })) },
      createTime: now(),
    };
    state.rulesets.set(ruleset.name, ruleset);
    changed();
    return { body: ruleset };
  }
  if ((match = /^\/v1\/(projects\/[^/]+\/rulesets\/[^/]+)$/.exec(path)) && method === 'GET') {
    const ruleset = state.rulesets.get(match[1]!);
    if (!ruleset) throw notFound(`Ruleset ${match[1]}`);
    return { body: ruleset };
  }
  if ((match = /^\/v1\/projects\/([^/]+)\/releases$/.exec(path)) && method === 'POST') {
    const name = String(body.name ?? '');
    if (!name.startsWith(`projects/${match[1]}/releases/`)) throw invalid(`Release name ${name} is not in the project.`);
    if (state.releases.has(name)) throw alreadyExists(`Release ${name}`);
    if (!state.rulesets.has(String(body.rulesetName))) throw notFound(`Ruleset ${body.rulesetName}`);
    const release = { name, rulesetName: body.rulesetName, createTime: now(), updateTime: now() };
    state.releases.set(name, release);
    changed();
    return { body: release };
  }
  if ((match = /^\/v1\/(projects\/[^/]+\/releases\/.+)$/.exec(path))) {
    const release = state.releases.get(match[1]!);
    if (!release) throw notFound(`Release ${match[1]}`);
    if (method === 'GET') return { body: release };
    if (method === 'PATCH') {
      const given = (body.release ?? {}) as Json;
      if (!state.rulesets.has(String(given.rulesetName))) throw notFound(`Ruleset ${given.rulesetName}`);
      release.rulesetName = given.rulesetName;
      release.updateTime = now();
      changed();
      return { body: release };
    }
  }

  throw notFound(`${method} ${path}`);
}

/** Starts the fake on 127.0.0.1 (`port` 0: any free port). */
export async function startGcpFake({ port = 0, state = emptyGcpState() }: { port?: number; state?: GcpState } = {}): Promise<GcpFake> {
  const served = await serve(
    'gcp',
    async (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://gcp.local');
      if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) {
        return json(res, 401, {
          error: { code: 401, message: 'Request is missing required authentication credential.', status: 'UNAUTHENTICATED' },
        });
      }
      try {
        const { status = 200, body } = await route(state, req, url);
        json(res, status, body);
      } catch (error) {
        if (!(error instanceof Status)) throw error;
        json(res, error.code, { error: { code: error.code, message: error.message, status: error.status } });
      }
    },
    { port },
  );
  return {
    ...served,
    state,
    addSecretVersion: (project, secret) => {
      const entry = state.secrets.get(`projects/${projectNumber(project)}/secrets/${secret}`);
      if (!entry) throw new Error(`No secret ${secret} in ${project}`);
      entry.versions.push({ name: `${entry.secret.name}/versions/${entry.versions.length + 1}`, state: 'ENABLED', createTime: now() });
    },
  };
}

/** `npx tsx sandbox/gcp.ts [port]`: the fake alone, until Ctrl-C (for trying `npm run cloud:setup` by hand). */
if (process.argv[1] && /sandbox[/\\]gcp\.ts$/.test(process.argv[1])) {
  const port = process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? process.env.FAKE_GCP_PORT ?? '4760';
  void startGcpFake({ port: Number(port) }).then(({ url }) =>
    console.log(`Fake Google Cloud APIs on ${url}: CLOUD_SETUP_API_URL=${url} npm run cloud:setup -- --project demo-x`),
  );
}
