import { readFileSync } from 'node:fs';
import path from 'node:path';
import { v1 } from '@google-cloud/firestore';
import { isNotFound, type CloudContext } from '@/scripts/lib/cloud/context';
import type { Change, Part } from '@/scripts/lib/cloud/plan';

/**
 * Firestore's composite indexes and single-field settings (exemptions and TTL policies) from
 * firestore.indexes.json, the file the Firebase CLI and the emulator read, through the Firestore Admin API;
 * and the security rules of firestore.rules, released through the Firebase Rules API. Indexes are only
 * added: one in the project but not in the file is reported, not deleted (a query may still use it).
 */
const ROOT = path.resolve(__dirname, '..', '..', '..');

type Order = 'ASCENDING' | 'DESCENDING';
interface IndexField {
  fieldPath: string;
  order?: Order;
  arrayConfig?: 'CONTAINS';
}
export interface IndexesFile {
  indexes: Array<{ collectionGroup: string; queryScope: 'COLLECTION' | 'COLLECTION_GROUP'; fields: IndexField[] }>;
  fieldOverrides: Array<{
    collectionGroup: string;
    fieldPath: string;
    ttl?: boolean;
    indexes: Array<{ order?: Order; arrayConfig?: 'CONTAINS'; queryScope: 'COLLECTION' | 'COLLECTION_GROUP' }>;
  }>;
}

export const readIndexesFile = (file = path.join(ROOT, 'firestore.indexes.json')): IndexesFile =>
  JSON.parse(readFileSync(file, 'utf8')) as IndexesFile;

/** The enum as a name (the REST transport may hand back numbers when numeric enums are asked for). */
const ORDER_NAMES = ['ORDER_UNSPECIFIED', 'ASCENDING', 'DESCENDING'];
const SCOPE_NAMES = ['QUERY_SCOPE_UNSPECIFIED', 'COLLECTION', 'COLLECTION_GROUP', 'COLLECTION_RECURSIVE'];
const name = (value: unknown, names: string[]) => (typeof value === 'number' ? names[value] : String(value ?? ''));

const fieldKey = (field: { fieldPath?: string | null; order?: unknown; arrayConfig?: unknown }) =>
  `${field.fieldPath}:${field.arrayConfig ? 'CONTAINS' : name(field.order, ORDER_NAMES)}`;

/** An index compared by scope and fields, without the `__name__` Firestore appends to each. */
function indexKey(group: string, scope: unknown, fields: Array<{ fieldPath?: string | null; order?: unknown; arrayConfig?: unknown }>) {
  const keys = fields.map(fieldKey);
  if (keys.length > 1 && keys.at(-1)!.startsWith('__name__:') && !fields.slice(0, -1).some((field) => field.fieldPath === '__name__'))
    keys.pop();
  return `${group} ${name(scope, SCOPE_NAMES)} (${keys.join(', ')})`;
}

/** A single-field setting compared: its indexes (sorted) and whether a TTL policy is on. */
function fieldSetting(
  indexes: Array<{ queryScope?: unknown; fields?: Array<{ order?: unknown; arrayConfig?: unknown }> | null }>,
  ttl: boolean,
) {
  const described = indexes
    .map(
      (index) =>
        `${name(index.queryScope, SCOPE_NAMES)} ${index.fields?.[0]?.arrayConfig ? 'CONTAINS' : name(index.fields?.[0]?.order, ORDER_NAMES)}`,
    )
    .sort();
  return `indexes [${described.join(', ')}]${ttl ? ', TTL' : ''}`;
}

export function firestoreIndexesPart(context: CloudContext, file: IndexesFile = readIndexesFile()): Part & { close: () => Promise<void> } {
  const client = new v1.FirestoreAdminClient(context.gapic);
  const database = `projects/${context.projectId}/databases/(default)`;
  return {
    title: 'Firestore indexes and TTL policies (firestore.indexes.json)',
    close: () => client.close(),
    plan: async () => {
      const changes: Change[] = [];
      const [existing] = await client.listIndexes({ parent: `${database}/collectionGroups/-` });
      const held = new Set(
        existing.map((index) =>
          indexKey(String(index.name).split('/collectionGroups/')[1]!.split('/')[0]!, index.queryScope, index.fields ?? []),
        ),
      );
      const declared = new Set<string>();
      for (const index of file.indexes) {
        const key = indexKey(index.collectionGroup, index.queryScope, index.fields);
        declared.add(key);
        if (held.has(key)) {
          changes.push({ kind: 'unchanged', resource: `index ${key}` });
          continue;
        }
        changes.push({
          kind: 'create',
          resource: `index ${key}`,
          detail: 'built by Firestore in the background',
          apply: () =>
            client.createIndex({
              parent: `${database}/collectionGroups/${index.collectionGroup}`,
              index: { queryScope: index.queryScope, fields: index.fields },
            }),
        });
      }
      for (const key of held) {
        if (!declared.has(key))
          changes.push({ kind: 'problem', resource: `index ${key}`, detail: 'not in firestore.indexes.json (left in place)' });
      }

      for (const override of file.fieldOverrides) {
        const fieldName = `${database}/collectionGroups/${override.collectionGroup}/fields/${override.fieldPath}`;
        const resource = `field ${override.collectionGroup}.${override.fieldPath}`;
        const [field] = await client.getField({ name: fieldName }).catch((error: unknown) => {
          if (isNotFound(error)) return [null];
          throw error;
        });
        const wantedIndexes = override.indexes.map(({ queryScope, ...field }) => ({
          queryScope,
          fields: [{ fieldPath: override.fieldPath, ...field }],
        }));
        const wanted = fieldSetting(wantedIndexes, Boolean(override.ttl));
        const inherits = !field || field.indexConfig?.usesAncestorConfig;
        const current = inherits ? 'inherited' : fieldSetting(field.indexConfig?.indexes ?? [], false);
        const hasTtl = Boolean(field?.ttlConfig);
        const paths: string[] = [];
        if (inherits || current !== fieldSetting(wantedIndexes, false)) paths.push('index_config');
        if (hasTtl !== Boolean(override.ttl)) paths.push('ttl_config');
        if (!paths.length) {
          changes.push({ kind: 'unchanged', resource, detail: wanted });
          continue;
        }
        changes.push({
          kind: inherits && !hasTtl ? 'create' : 'update',
          resource,
          detail: `${inherits ? 'inherited' : `${current}${hasTtl ? ', TTL' : ''}`} → ${wanted}`,
          apply: () =>
            client.updateField({
              field: { name: fieldName, indexConfig: { indexes: wantedIndexes }, ttlConfig: override.ttl ? {} : undefined },
              updateMask: { paths },
            }),
        });
      }
      return changes;
    },
  };
}

/** The Firestore rules release: `cloud.firestore` names the ruleset of the (default) database. */
interface Release {
  name: string;
  rulesetName: string;
}
interface Ruleset {
  name: string;
  source?: { files?: Array<{ name?: string; content?: string }> };
}

export function firestoreRulesPart(context: CloudContext, source = readFileSync(path.join(ROOT, 'firestore.rules'), 'utf8')): Part {
  const project = `/v1/projects/${context.projectId}`;
  const releaseName = `projects/${context.projectId}/releases/cloud.firestore`;
  const createRuleset = () =>
    context.rest<Ruleset>('rules', 'POST', `${project}/rulesets`, { source: { files: [{ name: 'firestore.rules', content: source }] } });
  return {
    title: 'Firestore security rules (firestore.rules)',
    plan: async () => {
      const resource = 'rules release cloud.firestore';
      const release = await context.rest<Release>('rules', 'GET', `/v1/${releaseName}`).catch((error: unknown) => {
        if (isNotFound(error)) return null;
        throw error;
      });
      if (!release) {
        return [
          {
            kind: 'create',
            resource,
            detail: 'firestore.rules as a new ruleset',
            apply: async () => {
              const ruleset = await createRuleset();
              await context.rest('rules', 'POST', `${project}/releases`, { name: releaseName, rulesetName: ruleset.name });
            },
          },
        ];
      }
      const ruleset = await context.rest<Ruleset>('rules', 'GET', `/v1/${release.rulesetName}`);
      const content = (ruleset.source?.files ?? []).map((file) => file.content ?? '').join('\n');
      if (content === source) return [{ kind: 'unchanged', resource, detail: release.rulesetName }];
      return [
        {
          kind: 'update',
          resource,
          detail: `${release.rulesetName} differs from firestore.rules: a new ruleset is released`,
          apply: async () => {
            const created = await createRuleset();
            await context.rest('rules', 'PATCH', `/v1/${releaseName}`, { release: { name: releaseName, rulesetName: created.name } });
          },
        },
      ];
    },
  };
}
