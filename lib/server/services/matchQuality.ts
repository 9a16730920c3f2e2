import { matchKeysTakenBy } from '@/lib/shared/conversions/matchKeys';
import { qualityAdvice, type ConversionQuality, type PlatformMeasure } from '@/lib/shared/conversions/quality';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import { namesInWords } from '@/lib/shared/conversions/reconciliation';
import { PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { PlatformError } from '@/lib/server/connectors/errors';
import { connectorFor } from '@/lib/server/connectors/registry';
import { openSessionOf } from '@/lib/server/credentials';
import { DomainError } from '@/lib/server/errors';
import * as repo from '@/lib/server/repos/conversions';
import * as qualityRepo from '@/lib/server/repos/matchQuality';

/**
 * The platform's figure changes daily and each read spends the customer's API quota: it is kept on the
 * conversion and asked again only after this cooldown, however often the page is opened and by whom.
 */
export const MEASURE_COOLDOWN_MS = 6 * 3600_000;
/** A refusal or an outage is kept for less, so a reconnected login shows its figure within the half hour. */
export const FAILED_MEASURE_COOLDOWN_MS = 30 * 60_000;
/** How long a reader holds the claim while it asks; a reader that dies leaves it to the next after this. */
const CLAIM_MS = 60_000;

type MeasureRead = { measure: PlatformMeasure; readAt: string | null };
type LastRequest = { id: string; at: string } | null;

/** Reads under way in this instance, per conversion: concurrent page views share one. */
const reading = new Map<string, Promise<MeasureRead>>();

/**
 * A conversion's match quality: the share of its events carrying each match key (counted by the
 * worker into the hour documents), what would raise it, and the platform's own measure beside it.
 */
export async function conversionQuality(orgId: string, id: string): Promise<ConversionQuality> {
  const conversion = await repo.getConversion(orgId, id);
  const { day, week, names, lastRequest } = await qualityRepo.matchQualityData(orgId, id);
  const platform = conversion.destination.platform;
  const { measure, readAt } = await platformMeasureOf(orgId, conversion, lastRequest);
  return {
    platform,
    keys: matchKeysTakenBy(platform),
    day,
    week,
    advice: qualityAdvice(week.events > 0 ? week : day, platform, conversion.source.type, conversion.mapping.identifiers),
    platformMeasure: scopedToEvents(measure, names, PLATFORM_LABELS[platform]),
    platformMeasureReadAt: readAt,
  };
}

/**
 * The platform's scores of this conversion's event names only: a score per event name (Meta's) covers the
 * target's every sender, and the target's other names are other senders' alone. `names`: what the platform
 * accepted from this conversion over the week; none, no score of the target is this conversion's.
 */
export function scopedToEvents(measure: PlatformMeasure, names: string[], platformName: string): PlatformMeasure {
  if (measure.status !== 'reported' || measure.kind !== 'event_scores') return measure;
  const ours = new Set(names.map((name) => name.toLowerCase()));
  const events = measure.events.filter((event) => ours.has(event.eventName.toLowerCase()));
  if (events.length > 0) return { ...measure, events };
  return {
    status: 'not_reported',
    message:
      names.length === 0
        ? `${platformName} scores each event name for all the senders of the target together: the score of this conversion's events shows once it has sent some in the last 7 days.`
        : `${platformName} has no score yet for ${namesInWords(names)}, the events this conversion sent.`,
  };
}

/** The platform's figure: kept, or read once per cooldown (shared by concurrent page views). */
async function platformMeasureOf(orgId: string, conversion: Conversion, lastRequest: LastRequest): Promise<MeasureRead> {
  const { platform } = conversion.destination;
  // Only a platform that reports match quality of its own (its connector's `quality`) is asked.
  const quality = connectorFor(platform).quality;
  if (!quality) return { measure: { status: 'not_reported', message: 'This platform reports no match quality of its own.' }, readAt: null };
  if (quality.needsLastRequest && !lastRequest)
    return {
      measure: { status: 'not_reported', message: `${PLATFORM_LABELS[platform]} reports on requests: none has been delivered yet.` },
      readAt: null,
    };
  const flight = `${orgId}/${conversion.id}`;
  let pending = reading.get(flight);
  if (!pending) {
    pending = keptOrRead(orgId, conversion, lastRequest).finally(() => reading.delete(flight));
    reading.set(flight, pending);
  }
  return pending;
}

/** The kept figure while fresh or while another instance reads it; otherwise this caller asks and keeps the answer. */
async function keptOrRead(orgId: string, conversion: Conversion, lastRequest: LastRequest): Promise<MeasureRead> {
  const { platform, destinationId, targetId } = conversion.destination;
  // A figure is of one destination's target: a conversion moved to another pixel asks afresh.
  const key = `${platform}:${destinationId}:${targetId}`;
  const { stored, claimed } = await qualityRepo.claimPlatformMeasure(orgId, conversion.id, key, CLAIM_MS);
  if (!claimed) {
    return (
      stored ?? {
        measure: { status: 'not_reported', message: 'The platform is being asked for its figure: refresh in a minute.' },
        readAt: null,
      }
    );
  }
  const measure = await askPlatform(orgId, conversion, lastRequest);
  const readAt = new Date();
  const cooldown = measure.status === 'unavailable' ? FAILED_MEASURE_COOLDOWN_MS : MEASURE_COOLDOWN_MS;
  await qualityRepo.savePlatformMeasure(orgId, conversion.id, { key, measure, readAt, freshUntil: new Date(readAt.getTime() + cooldown) });
  return { measure, readAt: readAt.toISOString() };
}

/** Asks the platform for its own figure; a refusal or an outage becomes words on the page, never a failed page. */
async function askPlatform(orgId: string, conversion: Conversion, lastRequest: LastRequest): Promise<PlatformMeasure> {
  const { platform, destinationId, targetId } = conversion.destination;
  try {
    const { session } = await openSessionOf(orgId, 'destination', destinationId);
    return await connectorFor(platform).quality!.read(session, targetId, lastRequest);
  } catch (error) {
    if (error instanceof PlatformError || error instanceof DomainError) return { status: 'unavailable', message: error.message };
    throw error;
  }
}
