import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { sourceKeyOf } from '@/lib/shared/conversions/conversion';
import { submissionBatchSchema, submittedEventSchema } from '@/lib/shared/schemas/submissions';
import { toConversionEvent } from '@/lib/server/conversions/normalize';
import { DomainError, fieldErrorsOf } from '@/lib/server/errors';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { appOfSubmissionKey, getApp, type SubmissionKeyOwner } from '@/lib/server/repos/apps';

/**
 * Ingest: events in, hashed, onto the queue — no Firestore write per event. The key is read on every
 * request (a revoked key stops at once); a batch of up to 500 events shares that read.
 */

/** The app behind a key, with the origin a publishable key is bound to; null for an unknown key. */
export async function resolveSubmissionKey(key: string): Promise<(SubmissionKeyOwner & { origin: string | null }) | null> {
  const found = await appOfSubmissionKey(key);
  if (!found) return null;
  return { ...found, origin: found.kind === 'publishable' ? originOf((await getApp(found.orgId, found.appId)).websiteUrl) : null };
}

export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export type IngestResult =
  { index: number; id: string } | { index: number; error: { code: 'invalid'; fieldErrors: Record<string, string[]> } };

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
  owner: SubmissionKeyOwner,
  body: unknown,
  request: RequestContext,
): Promise<{ batch: boolean; results: IngestResult[] }> {
  const batch = typeof body === 'object' && body !== null && 'events' in body;
  let raw: unknown[];
  if (batch) {
    const parsed = submissionBatchSchema.safeParse(body);
    if (!parsed.success)
      throw new DomainError('invalid', 'Some fields are missing or invalid.', { fieldErrors: fieldErrorsOf(parsed.error.issues) });
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
    const event = toConversionEvent(parsed.data, { source, receivedAt, ip: request.ip, userAgent: request.userAgent });
    events.push(event);
    return { index, id: event.id };
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
    throw new DomainError('invalid', 'Some fields are missing or invalid.', { fieldErrors });
  }
  await publishConversions(events, { org: owner.orgId, source });
  return { batch, results };
}
