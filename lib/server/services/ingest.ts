import { conversionEventSchema, type ConversionEvent } from '@/lib/shared/conversions/event';
import { sourceKeyOf } from '@/lib/shared/conversions/conversion';
import type { App } from '@/lib/shared/integrations/apps';
import { submissionBatchSchema, submittedEventSchema, unknownFieldsOf, type SubmissionWarning } from '@/lib/shared/schemas/submissions';
import { SUBMISSION_MESSAGES } from '@/lib/shared/schemas/submissionFields';
import { toConversionEvent } from '@/lib/server/conversions/normalize';
import { DomainError, fieldErrorsOf } from '@/lib/server/errors';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { appOfSubmissionKey, getApp, type SubmissionKeyOwner } from '@/lib/server/repos/apps';

/**
 * Ingest: events in, hashed, onto the queue — no Firestore write per event. The key is read on every
 * request (a revoked key stops at once); a batch of up to 500 events shares that read.
 */

/** What ingest needs of the app: the origin a publishable key is bound to, and the app's defaults for its events. */
export interface ResolvedKey extends SubmissionKeyOwner {
  origin: string | null;
  defaults: Pick<App, 'defaultCountry' | 'defaultConsent'>;
}

/**
 * An app's defaults, kept a little while per instance: a server-to-server key would otherwise read the
 * app document on every request for two settings that rarely change. An edit reaches ingest within
 * DEFAULTS_TTL_MS; the key itself is still read every time, so a revoked key stops at once.
 */
const DEFAULTS_TTL_MS = 30_000;
const MAX_CACHED_APPS = 10_000;
const defaultsCache = new Map<string, { defaults: ResolvedKey['defaults']; until: number }>();

function remember(appId: string, app: App): ResolvedKey['defaults'] {
  const defaults = { defaultCountry: app.defaultCountry, defaultConsent: app.defaultConsent };
  if (defaultsCache.size >= MAX_CACHED_APPS) defaultsCache.clear();
  defaultsCache.set(appId, { defaults, until: Date.now() + DEFAULTS_TTL_MS });
  return defaults;
}

/** An app's settings changed: its next request reads them again (other instances within DEFAULTS_TTL_MS). */
export const forgetAppDefaults = (appId: string) => void defaultsCache.delete(appId);

/**
 * The app behind a key, with the origin a publishable key is bound to and the app's defaults; null for an
 * unknown key. A publishable key reads the app each time (its origin decides who may send); a secret key
 * reads it only when its defaults are not in hand.
 */
export async function resolveSubmissionKey(key: string): Promise<ResolvedKey | null> {
  const found = await appOfSubmissionKey(key);
  if (!found) return null;
  const cached = defaultsCache.get(found.appId);
  if (found.kind === 'secret' && cached && cached.until > Date.now()) return { ...found, origin: null, defaults: cached.defaults };
  const app = await getApp(found.orgId, found.appId);
  return { ...found, origin: found.kind === 'publishable' ? originOf(app.websiteUrl) : null, defaults: remember(found.appId, app) };
}

export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
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
 * published; the answer says, per event, its id or what is wrong with it. A single invalid event
 * (or a batch with no valid one) is a 400 that names the fields; nothing is published then.
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
  await publishConversions(events, { org: owner.orgId, source });
  return { batch, results };
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
