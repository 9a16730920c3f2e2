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
 * (sandbox/google_ads/matching.ts), and `GET /v1/requestStatus:retrieve` reports it per destination
 * (sandbox/google_ads/diagnostics.ts). The protos and error shapes are sandbox/google_ads/dataManager.ts.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerFailure } from '@/sandbox/conversions';
import {
  accountType,
  dataManagerProtos,
  isPlainObject,
  isUnset,
  join,
  malformed,
  missingRequired,
  PACKAGE,
  permissionDenied,
  readProtoJson,
  refused,
  scopeInsufficient,
  SCOPE,
  unauthenticated,
  type DataManagerWorld,
  type FieldViolation,
} from '@/sandbox/google_ads/dataManager';
import { keepRequestStatus } from '@/sandbox/google_ads/diagnostics';
import { googleAddressKey } from '@/sandbox/google_ads/matching';
import type { ReceivedIdentifier } from '@/sandbox/matching';
import { json, readBody } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

/** IngestEventsRequest: "At most 2000 Event resources can be sent in a single request." */
const MAX_EVENTS = 2000;
const MAX_DESTINATIONS = 10;
const MAX_USER_IDENTIFIERS = 10;
/** Offline conversions are taken up to 90 days after they happened. */
const MAX_AGE_MS = 90 * 24 * 3600 * 1000;

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
  if (failure) return answerFailure(res, failure, googleFailure);
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
    keepRequestStatus(requestId, statuses);
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

/** A switched-on transient failure as Google's APIs answer it: RESOURCE_EXHAUSTED with Retry-After, or INTERNAL / UNAVAILABLE. */
function googleFailure(res: ServerResponse, status: 500 | 429 | 503) {
  const headers: Record<string, string> = status === 429 ? { 'Retry-After': '1' } : {};
  const rpc =
    status === 429
      ? { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' }
      : { code: status, message: 'Internal error encountered.', status: status === 503 ? 'UNAVAILABLE' : 'INTERNAL' };
  return json(res, status, { error: rpc }, headers);
}
