/**
 * A measuring aid for the bench (lib/server/costTrace.ts): what a written document takes in Firestore's
 * storage, by Firestore's published rules (https://firebase.google.com/docs/firestore/storage-size): a string
 * is its UTF-8 bytes + 1, a document name the sizes of its collection and document ids + 16, a document its
 * name + its fields + 32. Index entries are estimated from the same page, Firestore's index overview and
 * `firestore.indexes.json`: every field not exempted has an ascending and a descending entry of its value (an
 * array or a map whole too; taken to 1,500 bytes), an array one array-contains entry per distinct value, a map
 * its subfields', each the indexed document's name + its parent's + the field's name + the value + 32; each
 * composite index an entry (one per value of its array-contains field) of the two names + the values + 32. An
 * estimate: Firestore bills the storage it measures.
 */

/** A Firestore Value as the client library serializes it (the write it sends). */
export interface ValueProto {
  stringValue?: string;
  booleanValue?: boolean;
  integerValue?: number | string;
  doubleValue?: number;
  timestampValue?: unknown;
  nullValue?: unknown;
  bytesValue?: Uint8Array | string;
  referenceValue?: string;
  geoPointValue?: unknown;
  arrayValue?: { values?: ValueProto[] | null };
  mapValue?: { fields?: Record<string, ValueProto> | null };
}

export type FieldsProto = Record<string, ValueProto>;

/** What the index rules say of one collection group: fields exempted, fields given their own indexes, composites. */
export interface IndexRules {
  /** `{group}/{field path}` → the entries an override gives that field (0: exempted). */
  overrides: Map<string, number>;
  /** Collection group → its composite indexes' field paths (`array: true` for an array-contains field). */
  composites: Map<string, Array<Array<{ path: string; array: boolean }>>>;
}

interface IndexFile {
  indexes?: Array<{ collectionGroup: string; fields: Array<{ fieldPath: string; arrayConfig?: string }> }>;
  fieldOverrides?: Array<{ collectionGroup: string; fieldPath: string; indexes?: unknown[] }>;
}

export function indexRulesOf(file: IndexFile): IndexRules {
  const overrides = new Map<string, number>();
  for (const override of file.fieldOverrides ?? []) {
    overrides.set(`${override.collectionGroup}/${override.fieldPath}`, override.indexes?.length ?? 0);
  }
  const composites = new Map<string, Array<Array<{ path: string; array: boolean }>>>();
  for (const index of file.indexes ?? []) {
    const list = composites.get(index.collectionGroup) ?? [];
    list.push(index.fields.map((field) => ({ path: field.fieldPath, array: field.arrayConfig === 'CONTAINS' })));
    composites.set(index.collectionGroup, list);
  }
  return { overrides, composites };
}

const stringSize = (text: string) => Buffer.byteLength(text) + 1;

/** A document's name size from its path (`organizations/o1/conversions/c1`). */
export function nameSize(path: string): number {
  if (!path) return 0;
  return path.split('/').reduce((sum, segment) => sum + stringSize(segment), 0) + 16;
}

export function valueSize(value: ValueProto): number {
  if (value.stringValue !== undefined) return stringSize(value.stringValue);
  if (value.booleanValue !== undefined || value.nullValue !== undefined) return 1;
  if (value.bytesValue !== undefined)
    return typeof value.bytesValue === 'string' ? Buffer.byteLength(value.bytesValue, 'base64') : value.bytesValue.length;
  if (value.referenceValue !== undefined)
    return nameSize(value.referenceValue.replace(/^projects\/[^/]+\/databases\/[^/]+\/documents\//, ''));
  if (value.geoPointValue !== undefined) return 16;
  if (value.arrayValue) return (value.arrayValue.values ?? []).reduce((sum, item) => sum + valueSize(item), 0);
  if (value.mapValue) return fieldsSize(value.mapValue.fields ?? {});
  return 8; // integer, double, timestamp
}

function fieldsSize(fields: FieldsProto): number {
  return Object.entries(fields).reduce((sum, [name, value]) => sum + stringSize(name) + valueSize(value), 0);
}

/** Bytes a document of this path and these fields takes, index entries aside. */
export function documentSize(path: string, fields: FieldsProto): number {
  return nameSize(path) + fieldsSize(fields) + 32;
}

/** The collection group of a document path: its last collection id. */
const groupOf = (path: string) => path.split('/').at(-2) ?? '';

/** Estimated bytes of the index entries of a document of this path and these fields (see the module's comment). */
export function indexSize(path: string, fields: FieldsProto, rules: IndexRules): number {
  const group = groupOf(path);
  const names = nameSize(path) + nameSize(path.split('/').slice(0, -2).join('/'));
  let total = 0;
  const visit = (fieldPath: string, value: ValueProto) => {
    const override = rules.overrides.get(`${group}/${fieldPath}`);
    if (override === 0) return; // exempted, and its subfields with it
    const entry = (size: number) => names + stringSize(fieldPath) + size + 32;
    // Every field, a map or an array too, is indexed ascending and descending whole (taken here, as a string is, to
    // its first 1,500 bytes); a map's subfields each, an array's values each (array-contains).
    const whole = entry(Math.min(1500, valueSize(value)));
    if (value.mapValue) {
      total += whole * 2;
      for (const [name, inner] of Object.entries(value.mapValue.fields ?? {})) visit(`${fieldPath}.${name}`, inner);
      return;
    }
    if (value.arrayValue) {
      const distinct = new Map((value.arrayValue.values ?? []).map((item) => [JSON.stringify(item), item]));
      total += override === undefined ? whole * 2 : 0;
      for (const item of distinct.values()) total += entry(valueSize(item));
      return;
    }
    total += whole * (override ?? 2);
  };
  for (const [name, value] of Object.entries(fields)) visit(name, value);
  for (const composite of rules.composites.get(group) ?? []) {
    const values = composite.map((field) => ({ field, value: valueAt(fields, field.path) }));
    if (values.some(({ value }) => value === undefined)) continue;
    let entries = 1;
    let size = names + 32;
    for (const { field, value } of values) {
      if (field.array && value!.arrayValue) {
        const items = value!.arrayValue.values ?? [];
        entries = new Set(items.map((item) => JSON.stringify(item))).size;
        size += items.length ? valueSize(items[0]!) : 0;
      } else size += valueSize(value!);
    }
    total += entries * size;
  }
  return total;
}

function valueAt(fields: FieldsProto, path: string): ValueProto | undefined {
  let value: ValueProto | undefined = { mapValue: { fields } };
  for (const name of path.split('.')) value = value?.mapValue?.fields?.[name];
  return value;
}
