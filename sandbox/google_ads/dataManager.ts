/**
 * What the sandbox's Google Data Manager API shares between its ingestion (sandbox/google_ads/delivery.ts)
 * and its diagnostics (sandbox/google_ads/diagnostics.ts): its scope, the official protos of
 * `@google-ads/datamanager` and a reader of proto3 JSON against them (unknown fields, wrong types, a oneof
 * set twice, required fields), and Google's error shapes (401, 403, 400 with a google.rpc.BadRequest).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { Enum, Root, Type, util, type Field } from 'protobufjs';
import { json } from '@/sandbox/server';

type Json = Record<string, unknown>;

/** One refused field, as google.rpc.BadRequest.FieldViolation (`reason` is a Data Manager ErrorReason). */
export interface FieldViolation {
  field?: string;
  description: string;
  reason?: string;
}

/** What the Google side of the sandbox knows of its accounts, for the destination checks. */
export interface DataManagerWorld {
  /** Whether the login may act on the operating account, itself or through `loginAccountId`. */
  canOperate(operatingAccountId: string, loginAccountId: string | undefined): boolean;
  /** Whether the account owns this conversion action and it is enabled. */
  hasEnabledConversionAction(accountId: string, conversionActionId: string): boolean;
}

/** Event timestamps are RFC 3339 with a seconds part; the sub-second part is optional. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** The OAuth scope every Data Manager call needs. */
export const SCOPE = 'https://www.googleapis.com/auth/datamanager';
/** The protos' package, for looking up request messages. */
export const PACKAGE = 'google.ads.datamanager.v1';
const DOMAIN = 'datamanager.googleapis.com';

// --- The official protos -------------------------------------------------------------------------

let loaded: Root | null = null;

/**
 * The Data Manager protos as the npm package ships them; imports of google/api/* and
 * google/protobuf/* come from the google-gax it depends on (protobufjs knows the common ones too).
 */
export function dataManagerProtos(): Root {
  if (loaded) return loaded;
  const packageDir = path.dirname(require.resolve('@google-ads/datamanager/package.json'));
  const ownProtos = path.join(packageDir, 'build', 'protos');
  const gaxMain = require.resolve('google-gax', { paths: [packageDir] });
  const gaxProtos = path.join(gaxMain.slice(0, gaxMain.lastIndexOf(`${path.sep}build${path.sep}`)), 'build', 'protos');
  const root = new Root();
  root.resolvePath = (origin, target) => {
    for (const base of [ownProtos, gaxProtos]) {
      const candidate = path.join(base, target);
      if (existsSync(candidate)) return candidate;
    }
    return util.path.resolve(origin, target);
  };
  root.loadSync(path.join(ownProtos, 'google', 'ads', 'datamanager', 'v1', 'ingestion_service.proto'), { keepCase: true });
  root.resolveAll();
  loaded = root;
  return root;
}

/** The proto3 JSON name of a field: lowerCamelCase of its proto name. */
const jsonName = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const at = (where: string) => (where ? ` at '${where}'` : '');
/** A field's path under its parent, as violations name it. */
export const join = (parent: string, name: string) => (parent ? `${parent}.${name}` : name);
const typeUrl = (fullName: string) => `type.googleapis.com/${fullName.replace(/^\./, '')}`;
/** A JSON object (not an array, not null). */
export const isPlainObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

/** One scalar by the proto3 JSON rules; returns the value read, or undefined when it is of the wrong type. */
function readScalar(type: string, value: unknown): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'bytes':
      return typeof value === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(value) ? value : undefined;
    case 'double':
    case 'float': {
      if (typeof value === 'number') return value;
      if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return Number(value);
      return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : undefined;
    }
    default: {
      const number = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : NaN;
      if (!Number.isInteger(number)) return undefined;
      if (INT32.has(type)) return number >= -(2 ** 31) && number < 2 ** 31 ? number : undefined;
      if (UINT32.has(type)) return number >= 0 && number < 2 ** 32 ? number : undefined;
      if (INT64.has(type)) return type.startsWith('u') || type === 'fixed64' ? (number >= 0 ? value : undefined) : value;
      return undefined;
    }
  }
}

/**
 * Reads `value` as a `type` message by the proto3 JSON mapping, the way Google's front end does
 * before any handler sees it: a field is known by its JSON name or its proto name, null means unset,
 * enums by name or number, 64-bit integers as numbers or strings, Timestamps as RFC 3339. Returns
 * the message with proto field names (enums as names), and what Google would refuse. `fromObject`
 * of protobufjs is no check: it drops unknown keys and coerces wrong types.
 */
export function readProtoJson(type: Type, value: unknown, where = ''): { message: Json; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const message = readMessage(type, value, where, violations);
  return { message: message ?? {}, violations };
}

function readMessage(type: Type, value: unknown, where: string, violations: FieldViolation[]): Json | undefined {
  if (!isPlainObject(value)) {
    violations.push({ field: where, description: `Invalid value${at(where)} (${typeUrl(type.fullName)}), ${JSON.stringify(value)}` });
    return undefined;
  }
  const byJsonName = new Map(type.fieldsArray.map((field) => [jsonName(field.name), field]));
  const message: Json = {};
  const oneofSet = new Map<string, string>();
  for (const [key, raw] of Object.entries(value)) {
    const field = type.fields[key] ?? byJsonName.get(key);
    if (!field) {
      violations.push({
        ...(where ? { field: where } : {}),
        description: `Invalid JSON payload received. Unknown name "${key}"${at(where)}: Cannot find field.`,
      });
      continue;
    }
    if (raw === null) continue;
    const oneof = field.partOf;
    if (oneof && !field.options?.proto3_optional) {
      const already = oneofSet.get(oneof.name);
      if (already) {
        violations.push({
          field: where,
          description: `Invalid JSON payload received. Oneof field '${oneof.name}' is already set. Cannot set '${key}'`,
        });
        continue;
      }
      oneofSet.set(oneof.name, key);
    }
    const fieldWhere = join(where, field.name);
    if (field.repeated) {
      if (!Array.isArray(raw)) {
        violations.push({
          field: fieldWhere,
          description: `Invalid value${at(fieldWhere)} (${fieldTypeName(field)}), ${JSON.stringify(raw)}: Starting an object on a repeated field.`,
        });
        continue;
      }
      message[field.name] = raw.map((item, index) => readValue(field, item, `${fieldWhere}[${index}]`, violations));
    } else if (field.map) {
      violations.push({ field: fieldWhere, description: `The sandbox does not read map fields (${fieldWhere}).` });
    } else {
      if (Array.isArray(raw)) {
        violations.push({
          field: fieldWhere,
          description: `Invalid JSON payload received. Proto field is not repeating, cannot start list.${at(fieldWhere)}`,
        });
        continue;
      }
      message[field.name] = readValue(field, raw, fieldWhere, violations);
    }
  }
  return message;
}

function fieldTypeName(field: Field): string {
  if (field.resolvedType) return typeUrl(field.resolvedType.fullName);
  return `TYPE_${field.type.toUpperCase()}`;
}

function readValue(field: Field, raw: unknown, where: string, violations: FieldViolation[]): unknown {
  const invalid = (detail = '') => {
    violations.push({ field: where, description: `Invalid value${at(where)} (${fieldTypeName(field)}), ${JSON.stringify(raw)}${detail}` });
    return undefined;
  };
  const resolved = field.resolvedType;
  if (resolved instanceof Enum) {
    if (typeof raw === 'string' && raw in resolved.values) return raw;
    if (typeof raw === 'number' && Number.isInteger(raw)) return resolved.valuesById[raw] ?? raw;
    return invalid();
  }
  if (resolved instanceof Type) {
    const name = resolved.fullName;
    if (name === '.google.protobuf.Timestamp') {
      return typeof raw === 'string' && RFC3339.test(raw) && !Number.isNaN(Date.parse(raw))
        ? raw
        : invalid(`: Field '${field.name}', Invalid time format: Failed to parse input`);
    }
    if (name === '.google.protobuf.Duration') return typeof raw === 'string' && /^-?\d+(\.\d{1,9})?s$/.test(raw) ? raw : invalid();
    if (name.startsWith('.google.protobuf.')) return raw;
    return readMessage(resolved, raw, where, violations);
  }
  const value = readScalar(field.type, raw);
  return value === undefined ? invalid() : value;
}

const behaviours = (field: Field): string[] => {
  const option = field.options?.['(google.api.field_behavior)'] as string | string[] | undefined;
  return option === undefined ? [] : Array.isArray(option) ? option : [option];
};

/** Unset as proto3 sees it: absent or the default (an enum's zero value is its *_UNSPECIFIED name). */
export const isUnset = (value: unknown, isEnum = false) =>
  value === undefined ||
  value === '' ||
  value === 0 ||
  value === false ||
  (Array.isArray(value) && value.length === 0) ||
  (isEnum && typeof value === 'string' && /_UNSPECIFIED$/.test(value));

/** Fields marked `(google.api.field_behavior) = REQUIRED` that a read message leaves unset, anywhere in it. */
export function missingRequired(type: Type, message: Json, where = ''): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    const fieldWhere = join(where, field.name);
    if (behaviours(field).includes('REQUIRED') && isUnset(value, field.resolvedType instanceof Enum)) {
      violations.push({ field: fieldWhere, description: 'Required field is missing.', reason: 'REQUIRED_FIELD_MISSING' });
      continue;
    }
    const nested = field.resolvedType;
    if (!(nested instanceof Type) || nested.fullName.startsWith('.google.protobuf.') || value === undefined) continue;
    if (field.repeated && Array.isArray(value)) {
      value.forEach((item, index) => isPlainObject(item) && violations.push(...missingRequired(nested, item, `${fieldWhere}[${index}]`)));
    } else if (isPlainObject(value)) {
      violations.push(...missingRequired(nested, value, fieldWhere));
    }
  }
  return violations;
}

// --- Google's error shapes -----------------------------------------------------------------------

/** A google.rpc.Status answer, with its details when there are any. */
export function rpcError(res: ServerResponse, code: number, status: string, message: string, details: Json[] = []) {
  return json(res, code, { error: { code, message, status, ...(details.length ? { details } : {}) } });
}

/** A 400 of Google's front end: the JSON does not fit the request message. */
export function malformed(res: ServerResponse, violations: FieldViolation[]) {
  return rpcError(res, 400, 'INVALID_ARGUMENT', violations[0]!.description, [
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: violations.map(({ field, description }) => ({ ...(field ? { field } : {}), description })),
    },
  ]);
}

/** A 400 of Data Manager: each refused field with its ErrorReason, and a request id to quote. */
export function refused(res: ServerResponse, violations: FieldViolation[]) {
  const requestId = randomUUID();
  const reasons = new Set(violations.map((violation) => violation.reason));
  return rpcError(res, 400, 'INVALID_ARGUMENT', 'There was a problem with the request.', [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: reasons.size === 1 ? [...reasons][0] : 'INVALID_ARGUMENT',
      domain: DOMAIN,
      metadata: { requestId },
    },
    { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId },
    { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations },
  ]);
}

/** A 403 of Data Manager: the login may not operate the destination `field` names. */
export function permissionDenied(res: ServerResponse, field: string) {
  const requestId = randomUUID();
  return rpcError(res, 403, 'PERMISSION_DENIED', 'The caller does not have permission', [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'PERMISSION_DENIED', domain: DOMAIN, metadata: { requestId } },
    { '@type': 'type.googleapis.com/google.rpc.RequestInfo', requestId },
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [
        { field, description: 'The user does not have permission or the resource is not found.', reason: 'PERMISSION_DENIED' },
      ],
    },
  ]);
}

/** A 401: no live access token. */
export const unauthenticated = (res: ServerResponse) =>
  rpcError(
    res,
    401,
    'UNAUTHENTICATED',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  );

/** A 403: the token lacks the datamanager scope. */
export const scopeInsufficient = (res: ServerResponse) =>
  rpcError(res, 403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.', [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      domain: 'googleapis.com',
      metadata: { service: DOMAIN, method: `${PACKAGE}.IngestionService.IngestEvents` },
    },
  ]);

/** An account's type as the request names it (account_type, or the older product). */
export const accountType = (account: Json | undefined) =>
  account?.account_type ?? (account?.product === 'GOOGLE_ADS' ? 'GOOGLE_ADS' : undefined);
