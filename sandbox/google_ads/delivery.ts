/**
 * The sandbox's Google Data Manager API: `POST /v1/events:ingest`, the way Google Ads takes
 * conversions since the Google Ads API's uploadClickConversions closed to new developer tokens.
 *
 * A request is checked in the order Google answers: the access token and its `datamanager` scope
 * (401, 403), the JSON against the official protos of `@google-ads/datamanager` (unknown fields,
 * wrong types, a oneof set twice: 400 as Google's front end words it), then what Data Manager itself
 * refuses (required fields, at most 2,000 events, hashed identifiers, the 90-day window …: 400 with a
 * google.rpc.BadRequest naming each field), and whether the login operates each destination (403).
 * One bad event fails the whole request (Data Manager's "fast fail"); nothing of it is recorded.
 * An accepted request's user identifiers are matched against the known people in Google's forms
 * (sandbox/matching.ts), and `GET /v1/requestStatus:retrieve` reports it per destination.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { Enum, Root, Type, util, type Field } from 'protobufjs';
import { answerFailure } from '@/sandbox/conversions';
import { googleAddressKey, type ReceivedIdentifier } from '@/sandbox/matching';
import { json, readBody } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

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

const SCOPE = 'https://www.googleapis.com/auth/datamanager';
const PACKAGE = 'google.ads.datamanager.v1';
const DOMAIN = 'datamanager.googleapis.com';
/** IngestEventsRequest: "At most 2000 Event resources can be sent in a single request." */
const MAX_EVENTS = 2000;
const MAX_DESTINATIONS = 10;
const MAX_USER_IDENTIFIERS = 10;
/** Offline conversions are taken up to 90 days after they happened. */
const MAX_AGE_MS = 90 * 24 * 3600 * 1000;
/** Event timestamps are RFC 3339 with a seconds part; the sub-second part is optional. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

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
const join = (parent: string, name: string) => (parent ? `${parent}.${name}` : name);
const typeUrl = (fullName: string) => `type.googleapis.com/${fullName.replace(/^\./, '')}`;
const isPlainObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

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
const isUnset = (value: unknown, isEnum = false) =>
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

function rpcError(res: ServerResponse, code: number, status: string, message: string, details: Json[] = []) {
  return json(res, code, { error: { code, message, status, ...(details.length ? { details } : {}) } });
}

/** A 400 of Google's front end: the JSON does not fit the request message. */
function malformed(res: ServerResponse, violations: FieldViolation[]) {
  return rpcError(res, 400, 'INVALID_ARGUMENT', violations[0]!.description, [
    {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: violations.map(({ field, description }) => ({ ...(field ? { field } : {}), description })),
    },
  ]);
}

/** A 400 of Data Manager: each refused field with its ErrorReason, and a request id to quote. */
function refused(res: ServerResponse, violations: FieldViolation[]) {
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

function permissionDenied(res: ServerResponse, field: string) {
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

const unauthenticated = (res: ServerResponse) =>
  rpcError(
    res,
    401,
    'UNAUTHENTICATED',
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  );

const scopeInsufficient = (res: ServerResponse) =>
  rpcError(res, 403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.', [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      domain: 'googleapis.com',
      metadata: { service: DOMAIN, method: `${PACKAGE}.IngestionService.IngestEvents` },
    },
  ]);

// --- What Data Manager refuses -------------------------------------------------------------------

const GOOGLE_ADS_ID = /^\d{10}$/;

/** A hashed identifier in the request's encoding: SHA-256 is 32 bytes, 64 hex digits or 44 base64 characters. */
function hashViolation(value: unknown, encoding: unknown, field: string): FieldViolation | null {
  const text = typeof value === 'string' ? value : '';
  if (encoding === 'BASE64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0)
      return { field, description: 'The base64 encoded value is malformed.', reason: 'INVALID_BASE64_ENCODING' };
    return Buffer.from(text, 'base64').length === 32
      ? null
      : { field, description: 'The SHA256 encoded value is malformed.', reason: 'INVALID_SHA256_FORMAT' };
  }
  if (!/^[0-9a-fA-F]*$/.test(text)) return { field, description: 'The HEX encoded value is malformed.', reason: 'INVALID_HEX_ENCODING' };
  return text.length === 64 ? null : { field, description: 'The SHA256 encoded value is malformed.', reason: 'INVALID_SHA256_FORMAT' };
}

const accountType = (account: Json | undefined) => account?.account_type ?? (account?.product === 'GOOGLE_ADS' ? 'GOOGLE_ADS' : undefined);

/** The destinations' own rules (before access is checked): Google Ads accounts, their ids, unique references. */
function destinationViolations(destinations: Json[]): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if (destinations.length > MAX_DESTINATIONS)
    violations.push({
      field: 'destinations',
      description: `Maximum number of destinations allowed per request is ${MAX_DESTINATIONS}.`,
      reason: 'TOO_MANY_DESTINATIONS',
    });
  const references = new Set<string>();
  destinations.forEach((destination, index) => {
    for (const role of ['operating_account', 'login_account'] as const) {
      const account = destination[role] as Json | undefined;
      if (!account) continue;
      const where = `destinations[${index}].${role}`;
      if (accountType(account) !== 'GOOGLE_ADS') {
        violations.push({
          field: `${where}.account_type`,
          description: 'The sandbox plays Google Ads destinations only: set accountType to GOOGLE_ADS.',
          reason: 'INVALID_DESTINATION',
        });
      } else if (!GOOGLE_ADS_ID.test(String(account.account_id ?? ''))) {
        violations.push({
          field: `${where}.account_id`,
          description: 'A Google Ads account id is 10 digits without dashes.',
          reason: 'INVALID_FORMAT',
        });
      }
    }
    const reference = destination.reference as string | undefined;
    if (reference) {
      if (references.has(reference))
        violations.push({
          field: `destinations[${index}].reference`,
          description: 'Destination reference is duplicated.',
          reason: 'DUPLICATE_DESTINATION_REFERENCE',
        });
      references.add(reference);
    }
  });
  return violations;
}

/** One event's rules for a Google Ads offline conversion. */
function eventViolations(event: Json, index: number, request: Json, references: Set<string>, now: number): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const where = `events[${index}]`;
  const push = (field: string, description: string, reason: string) => violations.push({ field: join(where, field), description, reason });
  for (const reference of (event.destination_references as string[] | undefined) ?? []) {
    if (!references.has(reference))
      push('destination_references', `No destination has the reference "${reference}".`, 'INVALID_DESTINATION');
  }
  // Google dedups a conversion action's conversions on it; the sandbox's ledger needs it as the key.
  if (!event.transaction_id) push('transaction_id', 'Required field is missing.', 'REQUIRED_FIELD_MISSING');
  const timestamp = typeof event.event_timestamp === 'string' ? Date.parse(event.event_timestamp) : NaN;
  if (!Number.isNaN(timestamp) && (timestamp > now + 1000 || timestamp < now - MAX_AGE_MS)) {
    push(
      'event_timestamp',
      'Event did not occur within the acceptable time window: at most 90 days ago, and not in the future.',
      'EVENT_TIME_INVALID',
    );
  }
  // Required for offline conversions and enhanced conversions for leads (release notes v1.2).
  if (isUnset(event.event_source, true))
    push('event_source', 'Required field is missing: the event source of an offline conversion.', 'REQUIRED_FIELD_MISSING');
  const ads = (event.ad_identifiers as Json | undefined) ?? {};
  const identifiers = ((event.user_data as Json | undefined)?.user_identifiers as Json[] | undefined) ?? [];
  if (!ads.gclid && !ads.gbraid && !ads.wbraid && identifiers.length === 0) {
    violations.push({
      field: where,
      description: 'No identifiers provided: give a gclid, gbraid or wbraid, or user identifiers.',
      reason: 'NO_IDENTIFIERS_PROVIDED',
    });
  }
  if (identifiers.length > MAX_USER_IDENTIFIERS)
    push(
      'user_data.user_identifiers',
      `Maximum number of user identifiers allowed is ${MAX_USER_IDENTIFIERS}.`,
      'TOO_MANY_USER_IDENTIFIERS',
    );
  const hashed = (value: unknown, field: string) => {
    const problem = hashViolation(value, request.encoding, field);
    if (problem) violations.push(problem);
  };
  identifiers.forEach((identifier, position) => {
    const field = `${where}.user_data.user_identifiers[${position}]`;
    const address = identifier.address;
    if (identifier.email_address !== undefined) hashed(identifier.email_address, `${field}.email_address`);
    else if (identifier.phone_number !== undefined) hashed(identifier.phone_number, `${field}.phone_number`);
    else if (isPlainObject(address)) {
      // Missing parts of an address are REQUIRED fields, reported on their own.
      if (address.given_name) hashed(address.given_name, `${field}.address.given_name`);
      if (address.family_name) hashed(address.family_name, `${field}.address.family_name`);
      if (address.region_code && !/^[A-Z]{2}$/.test(String(address.region_code))) {
        violations.push({
          field: `${field}.address.region_code`,
          description: 'Region code is not valid: two letters of ISO 3166-1.',
          reason: 'INVALID_REGION_CODE',
        });
      }
    } else
      violations.push({
        field,
        description: 'Required field is missing: exactly one of email_address, phone_number or address.',
        reason: 'REQUIRED_FIELD_MISSING',
      });
  });
  if (event.currency !== undefined && !/^[A-Z]{3}$/.test(String(event.currency)))
    push('currency', 'The currency code is not supported.', 'INVALID_CURRENCY_CODE');
  const value = event.conversion_value;
  if (typeof value === 'number' && (!Number.isFinite(value) || value < 0))
    push('conversion_value', 'Invalid number format: a conversion value is a finite, non-negative number.', 'INVALID_NUMBER_FORMAT');
  return violations;
}

/**
 * `POST /v1/events:ingest`. When the switch of the ledger is on, the transient failure comes first;
 * a request that passes is recorded per destination and transaction id (validateOnly records nothing).
 */
export async function ingestEvents(req: IncomingMessage, res: ServerResponse, url: URL, store: SandboxStore, world: DataManagerWorld) {
  const failure = store.conversions.failing('google');
  if (failure) return answerFailure(res, 'google', failure);
  const caller = store.bearerToken(req, url, 'google');
  if (!caller) return unauthenticated(res);
  if (!caller.scope.split(' ').includes(SCOPE)) return scopeInsufficient(res);

  let body: unknown;
  try {
    body = JSON.parse((await readBody(req)) || '{}');
  } catch {
    return malformed(res, [{ description: 'Invalid JSON payload received. Unexpected token.' }]);
  }
  const requestType = dataManagerProtos().lookupType(`${PACKAGE}.IngestEventsRequest`);
  const { message: request, violations: structural } = readProtoJson(requestType, body);
  if (structural.length > 0) return malformed(res, structural);

  const destinations = (request.destinations as Json[] | undefined) ?? [];
  const events = (request.events as Json[] | undefined) ?? [];
  const rules = [...missingRequired(requestType, request), ...destinationViolations(destinations)];
  if (events.length > MAX_EVENTS)
    rules.push({
      field: 'events',
      description: `At most ${MAX_EVENTS} events can be sent in a single request.`,
      reason: 'TOO_MANY_EVENTS',
    });
  if (rules.length > 0) return refused(res, rules);

  // The login must operate every destination: itself, or through the manager named as loginAccount.
  for (const [index, destination] of destinations.entries()) {
    const operating = String((destination.operating_account as Json).account_id);
    const login = (destination.login_account as Json | undefined)?.account_id as string | undefined;
    if (!world.canOperate(operating, login)) return permissionDenied(res, `destinations[${index}].operating_account`);
  }
  const checks: FieldViolation[] = [];
  destinations.forEach((destination, index) => {
    const operating = String((destination.operating_account as Json).account_id);
    if (!world.hasEnabledConversionAction(operating, String(destination.product_destination_id))) {
      checks.push({
        field: `destinations[${index}].product_destination_id`,
        description: 'Conversion action ID is not valid.',
        reason: 'INVALID_CONVERSION_ACTION_ID',
      });
    }
  });
  if (request.encryption_info)
    checks.push({
      field: 'encryption_info',
      description: 'The sandbox does not decrypt user data: send it hashed only.',
      reason: 'INVALID_ARGUMENT',
    });
  const hasUserData = events.some((event) => ((event.user_data as Json | undefined)?.user_identifiers as unknown[] | undefined)?.length);
  if (hasUserData && isUnset(request.encoding, true))
    checks.push({
      field: 'encoding',
      description: 'Required field is missing: the encoding of hashed user identifiers.',
      reason: 'REQUIRED_FIELD_MISSING',
    });
  const references = new Set(
    destinations
      .map((destination) => destination.reference as string | undefined)
      .filter((reference): reference is string => Boolean(reference)),
  );
  const now = Date.now();
  events.forEach((event, index) => checks.push(...eventViolations(event, index, request, references, now)));
  if (checks.length > 0) return refused(res, checks);

  const requestId = randomUUID();
  if (!request.validate_only) {
    store.conversions.countCall('google');
    const received = (body as { events: Json[] }).events;
    const statuses = destinations.map((destination) => ({ destination, records: 0, deniedConsent: 0 }));
    events.forEach((event, index) => {
      const wanted = (event.destination_references as string[] | undefined) ?? [];
      const consent = (event.consent as Json | undefined) ?? (request.consent as Json | undefined);
      const denied = consent?.ad_user_data === 'CONSENT_DENIED';
      destinations.forEach((destination, position) => {
        if (wanted.length > 0 && !wanted.includes(String(destination.reference))) return;
        const operating = String((destination.operating_account as Json).account_id);
        const action = String(destination.product_destination_id);
        statuses[position]!.records += 1;
        // Google does not use the user data of a person who denied it (processing error DENIED_CONSENT).
        if (denied) statuses[position]!.deniedConsent += 1;
        const identifiers = denied ? [] : identifiersOf(event, request.encoding);
        const judged = denied ? null : store.matches.judge('google', action, String(event.event_name ?? 'conversion'), identifiers);
        // Attributed only when it matched a click or a known customer (sandbox/reporting.ts).
        const clicks = (event.ad_identifiers ?? {}) as Json;
        const clicked = ['gclid', 'gbraid', 'wbraid'].some((key) => typeof clicks[key] === 'string' && clicks[key] !== '');
        const attributable = clicked || Boolean(judged?.matched && identifiers.length > 0);
        store.conversions.record('google', `${operating}/${action}|${String(event.transaction_id)}`, action, received[index]!, 'first', {
          attributable,
        });
      });
    });
    requestStatuses.set(requestId, statuses);
    if (requestStatuses.size > MAX_REQUEST_STATUSES) requestStatuses.delete(requestStatuses.keys().next().value!);
  }
  return json(res, 200, { requestId });
}

/** A hashed value as hex, whatever the request's encoding. */
const hexOf = (value: unknown, encoding: unknown) =>
  encoding === 'BASE64' ? Buffer.from(String(value), 'base64').toString('hex') : String(value).toLowerCase();

/** An accepted event's user identifiers as Google compares them: hashes as hex, an address as its four parts. */
function identifiersOf(event: Json, encoding: unknown): ReceivedIdentifier[] {
  const identifiers = ((event.user_data as Json | undefined)?.user_identifiers as Json[] | undefined) ?? [];
  return identifiers.flatMap((identifier): ReceivedIdentifier[] => {
    if (identifier.email_address !== undefined) return [{ key: 'email_address', value: hexOf(identifier.email_address, encoding) }];
    if (identifier.phone_number !== undefined) return [{ key: 'phone_number', value: hexOf(identifier.phone_number, encoding) }];
    const address = identifier.address as Json | undefined;
    if (!address) return [];
    return [
      {
        key: 'address',
        value: googleAddressKey({
          ...address,
          given_name: hexOf(address.given_name, encoding),
          family_name: hexOf(address.family_name, encoding),
        }),
      },
    ];
  });
}

/** What each accepted request left per destination, for `requestStatus:retrieve` (the sandbox keeps the last 10,000). */
const requestStatuses = new Map<string, Array<{ destination: Json; records: number; deniedConsent: number }>>();
const MAX_REQUEST_STATUSES = 10_000;

/** A destination as the API writes it back (proto3 JSON names). */
function destinationJson(destination: Json): Json {
  const account = (value: unknown) => {
    const found = value as Json | undefined;
    return found ? { accountType: accountType(found), accountId: String(found.account_id) } : undefined;
  };
  return {
    ...(destination.reference ? { reference: destination.reference } : {}),
    ...(destination.login_account ? { loginAccount: account(destination.login_account) } : {}),
    operatingAccount: account(destination.operating_account),
    productDestinationId: String(destination.product_destination_id),
  };
}

/**
 * `GET /v1/requestStatus:retrieve?requestId=…` (RetrieveRequestStatusResponse): per destination its
 * status, the events ingested (IngestEventsStatus.record_count, an int64 as a JSON string) and the
 * records Google could not use with their ProcessingErrorReason. A request id the sandbox never
 * answered is NOT_FOUND.
 */
export async function retrieveRequestStatus(req: IncomingMessage, res: ServerResponse, url: URL, store: SandboxStore) {
  const caller = store.bearerToken(req, url, 'google');
  if (!caller) return unauthenticated(res);
  if (!caller.scope.split(' ').includes(SCOPE)) return scopeInsufficient(res);
  const requestId = url.searchParams.get('requestId') ?? url.searchParams.get('request_id') ?? '';
  if (!requestId)
    return refused(res, [{ field: 'request_id', description: 'Required field is missing.', reason: 'REQUIRED_FIELD_MISSING' }]);
  const statuses = requestStatuses.get(requestId);
  if (!statuses) return rpcError(res, 404, 'NOT_FOUND', `Request ${requestId} was not found.`);
  return json(res, 200, {
    requestStatusPerDestination: statuses.map(({ destination, records, deniedConsent }) => ({
      destination: destinationJson(destination),
      requestStatus: deniedConsent === 0 ? 'SUCCESS' : deniedConsent < records ? 'PARTIAL_SUCCESS' : 'FAILED',
      ...(deniedConsent
        ? { errorInfo: { errorCounts: [{ recordCount: String(deniedConsent), reason: 'PROCESSING_ERROR_REASON_DENIED_CONSENT' }] } }
        : {}),
      eventsIngestionStatus: { recordCount: String(records - deniedConsent) },
    })),
  });
}
