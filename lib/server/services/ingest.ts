import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import { sourceKeyOf, type Conversion } from '@/lib/shared/conversions/conversion';
import { entitlementsOf } from '@/lib/shared/billing/entitlements';
import type { App } from '@/lib/shared/integrations/apps';
import { submissionBatchSchema, submittedEventSchema, unknownFieldsOf, type SubmissionWarning } from '@/lib/shared/schemas/submissions';
import { SUBMISSION_MESSAGES } from '@/lib/shared/schemas/submissionFields';
import { toConversionEvent } from '@/lib/server/delivery/normalize';
import { DomainError, fieldErrorsOf } from '@/lib/server/errors';
import { errorFields, eventIdsOf, labels, log } from '@/lib/server/log';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { activeConversionsOf, notSentWarnings } from '@/lib/server/services/ingestRouting';
import { appOfSubmissionKey, getApp, type SubmissionKeyOwner } from '@/lib/server/repos/apps';
import { planOfOrganization } from '@/lib/server/repos/planPauses';

/**
 * Ingest: events in, hashed, onto the queue — no Firestore write per event or per request, and no read
 * per request either: a valid key's owner is kept KEY_TTL_MS per instance (a revoked or replaced key stops
 * at once on the instance that changed it, within KEY_TTL_MS on the others), and requests of one key that
 * miss the cache together share one read.
 */

/** What ingest needs of the app: the origin a publishable key is bound to, and the app's defaults for its events. */
export interface ResolvedKey extends SubmissionKeyOwner {
  origin: string | null;
  defaults: Pick<App, 'defaultCountry' | 'defaultConsent'>;
  /** The organization's plan's events a second for one key (entitlements table). */
  perSecond: number;
}

/**
 * An app's defaults, kept a little while per instance: a server-to-server key would otherwise read the
 * app document on every request for two settings that rarely change. An edit reaches ingest within
 * DEFAULTS_TTL_MS; the key itself is kept KEY_TTL_MS (below), so a revocation elsewhere reaches this instance
 * within that time.
 * The organization's plan (its rate limit) is kept as long: an upgrade raises the limit within that time.
 */
const DEFAULTS_TTL_MS = 30_000;
/** How long an instance trusts a key it has read: how late a revocation reaches the other instances. */
export const KEY_TTL_MS = 5_000;
const MAX_CACHED = 10_000;
const defaultsCache = new Map<string, { defaults: ResolvedKey['defaults']; until: number }>();
const plansCache = new Map<string, { perSecond: Promise<number>; until: number }>();
const ownersCache = new Map<string, { owner: ResolvedKey; until: number }>();

function remember(appId: string, app: App): ResolvedKey['defaults'] {
  const defaults = { defaultCountry: app.defaultCountry, defaultConsent: app.defaultConsent };
  if (defaultsCache.size >= MAX_CACHED) defaultsCache.clear();
  defaultsCache.set(appId, { defaults, until: Date.now() + DEFAULTS_TTL_MS });
  return defaults;
}

/**
 * An app's settings or keys changed (edited, key replaced or revoked, app deleted): this instance reads
 * them again at its next request; other instances within KEY_TTL_MS (keys) or DEFAULTS_TTL_MS (defaults).
 */
export function forgetApp(appId: string): void {
  defaultsCache.delete(appId);
  for (const [key, { owner }] of ownersCache) if (owner.appId === appId) ownersCache.delete(key);
}

/** The plan's events a second for one key of this organization; one read per organization per DEFAULTS_TTL_MS. */
function perSecondOf(orgId: string): Promise<number> {
  const cached = plansCache.get(orgId);
  if (cached && cached.until > Date.now()) return cached.perSecond;
  const perSecond = planOfOrganization(orgId).then((plan) => entitlementsOf(plan).ingestEventsPerSecond);
  if (plansCache.size >= MAX_CACHED) plansCache.clear();
  plansCache.set(orgId, { perSecond, until: Date.now() + DEFAULTS_TTL_MS });
  // A failed read is not kept: the next request tries again.
  perSecond.catch(() => plansCache.delete(orgId));
  return perSecond;
}

/** Reads a key's owner now: the key document, and the app when its origin or defaults are needed. */
async function readOwner(key: string): Promise<ResolvedKey | null> {
  const found = await appOfSubmissionKey(key);
  if (!found) return null;
  const perSecond = perSecondOf(found.orgId);
  const cached = defaultsCache.get(found.appId);
  if (found.kind === 'secret' && cached && cached.until > Date.now())
    return { ...found, origin: null, defaults: cached.defaults, perSecond: await perSecond };
  const app = await getApp(found.orgId, found.appId);
  return {
    ...found,
    origin: found.kind === 'publishable' ? originOf(app.websiteUrl) : null,
    defaults: remember(found.appId, app),
    perSecond: await perSecond,
  };
}

/** Per key, the read in flight: requests that miss the cache together share it (one read per key per round trip). */
const keyReads = new Map<string, Promise<ResolvedKey | null>>();

function sharedRead(key: string): Promise<ResolvedKey | null> {
  const running = keyReads.get(key);
  if (running) return running;
  const read = readOwner(key).finally(() => keyReads.delete(key));
  keyReads.set(key, read);
  return read;
}

/**
 * The app behind a key, with the origin a publishable key is bound to, the app's defaults and the plan's
 * rate; null for an unknown key (not kept: a key made a moment ago works at once).
 */
export async function resolveSubmissionKey(key: string): Promise<ResolvedKey | null> {
  const cached = ownersCache.get(key);
  if (cached && cached.until > Date.now()) return cached.owner;
  const owner = await sharedRead(key);
  if (owner) {
    if (ownersCache.size >= MAX_CACHED) ownersCache.clear();
    ownersCache.set(key, { owner, until: Date.now() + KEY_TTL_MS });
  } else {
    ownersCache.delete(key);
  }
  return owner;
}

export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** An origin without a leading "www." in its host: https://www.shop.example and https://shop.example are one site. */
const withoutWww = (origin: string) => origin.replace(/^(https?:\/\/)www\./, '$1');

/**
 * Whether a browser's Origin may use an app's publishable key: the app's website origin, or the same with or
 * without "www." (a site answers on both and redirects one to the other; which one the app was given with
 * should not decide whether its conversions arrive). Scheme and port must match.
 */
export function originAllowed(origin: string, allowed: string | null): boolean {
  if (!allowed) return false;
  return origin === allowed || withoutWww(origin) === withoutWww(allowed);
}

export type IngestResult =
  | { index: number; id: string; warnings?: SubmissionWarning[] }
  | { index: number; error: { code: 'invalid'; fieldErrors: Record<string, string[]> } };

interface RequestContext {
  ip?: string;
  userAgent?: string;
}

/**
 * One event (an object) or a batch (`{events: [...]}`, up to 500): each valid event is hashed and
 * published; the answer says, per event, its id or what is wrong with it, and warns of fields we do not
 * know and of the source's conversions that take the event but will not send it (and why). A single
 * invalid event (or a batch with no valid one) is a 400 that names the fields; nothing is published then.
 */
export async function ingest(
  owner: SubmissionKeyOwner & { defaults?: ResolvedKey['defaults'] },
  body: unknown,
  request: RequestContext,
): Promise<{ batch: boolean; results: IngestResult[] }> {
  const batch = typeof body === 'object' && body !== null && 'events' in body;
  let raw: unknown[];
  if (batch) {
    const parsed = submissionBatchSchema.safeParse(body);
    if (!parsed.success) throw new DomainError('invalid', SUBMISSION_MESSAGES.invalid, { fieldErrors: fieldErrorsOf(parsed.error.issues) });
    raw = parsed.data.events;
  } else {
    raw = [body];
  }
  const receivedAt = new Date();
  const source = sourceKeyOf({ type: 'app', appId: owner.appId });
  const events: ConversionEvent[] = [];
  const results: IngestResult[] = raw.map((item, index) => {
    const parsed = submittedEventSchema.safeParse(item);
    if (!parsed.success) return { index, error: { code: 'invalid', fieldErrors: fieldErrorsOf(parsed.error.issues) } };
    const made = toConversionEvent(parsed.data, {
      source,
      receivedAt,
      ip: request.ip,
      userAgent: request.userAgent,
      ...owner.defaults,
      sourceLabel: 'app',
    });
    // The queue's schema is the one the worker reads with: what it would refuse is refused here, with a 400.
    const checked = conversionEventSchema.safeParse(made);
    if (!checked.success) return { index, error: { code: 'invalid', fieldErrors: queuedFieldErrors(checked.error.issues) } };
    events.push(checked.data);
    const warnings = unknownFieldsOf(item);
    return warnings.length > 0 ? { index, id: checked.data.id, warnings } : { index, id: checked.data.id };
  });
  if (events.length === 0) {
    const first = results[0] as Extract<IngestResult, { error: unknown }>;
    const fieldErrors = batch
      ? Object.fromEntries(
          results.flatMap((result) =>
            'error' in result
              ? Object.entries(result.error.fieldErrors).map(([field, messages]) => [`events.${result.index}.${field}`, messages])
              : [],
          ),
        )
      : first.error.fieldErrors;
    throw new DomainError('invalid', SUBMISSION_MESSAGES.invalid, { fieldErrors });
  }
  // Where the events go is read (or found cached) while they are published: a 202 costs no extra round trip.
  const [, conversions] = await Promise.all([publishConversions(events, { org: owner.orgId, source }), routingOf(owner.orgId, source)]);
  if (conversions) warnNotSent(results, events, conversions, receivedAt);
  // One line a request, ids only (never the event's content): its events are followed from here to their delivery records.
  log.info(
    {
      component: 'ingest',
      ...labels({ org: owner.orgId, app: owner.appId, event: events.length === 1 ? events[0]!.id : undefined }),
      ...eventIdsOf(events),
      invalid: results.length - events.length,
    },
    'events accepted',
  );
  return { batch, results };
}

/** The source's active conversions, or null when they cannot be read now: the events are queued all the same, without warnings. */
function routingOf(orgId: string, source: string): Promise<Conversion[] | null> {
  return activeConversionsOf(orgId, source).catch((error: unknown) => {
    log.warn(
      { component: 'ingest', ...labels({ org: orgId }), ...errorFields(error) },
      'could not read where the events go; answered without warnings',
    );
    return null;
  });
}

/** Adds to each accepted event's answer the conversions that take it but will not send it, and why. */
function warnNotSent(results: IngestResult[], events: ConversionEvent[], conversions: Conversion[], now: Date): void {
  if (conversions.length === 0) return;
  let next = 0;
  for (const result of results) {
    if (!('id' in result)) continue;
    const notSent = notSentWarnings(conversions, events[next++]!, now);
    if (notSent.length > 0) result.warnings = [...(result.warnings ?? []), ...notSent];
  }
}

/** Where a queued event's field came from in the submission (user.phone → phone, clickIds.fbc → fbclid/fbc, time → occurredAt). */
const SUBMITTED_NAME: Record<string, string> = { time: 'occurredAt', name: 'event', id: 'eventId', 'clickIds.fbc': 'fbclid' };

function queuedFieldErrors(issues: Array<{ path: PropertyKey[]; message: string }>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const path = issue.path.map(String);
    const joined = path.join('.');
    const field =
      SUBMITTED_NAME[joined] ?? (path[0] === 'user' || path[0] === 'clickIds' || path[0] === 'context' ? path[1] : path[0]) ?? 'event';
    (errors[field] ??= []).push(`Cannot be queued: ${issue.message}`);
  }
  return errors;
}
