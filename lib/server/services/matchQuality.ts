import { matchKeysTakenBy } from '@/lib/shared/conversions/matchKeys';
import { qualityAdvice, type ConversionQuality, type PlatformMeasure } from '@/lib/shared/conversions/quality';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import { readRequestStatus } from '@/lib/server/connectors/google-ads/diagnostics';
import { PlatformError } from '@/lib/server/connectors/errors';
import { readDatasetQuality } from '@/lib/server/connectors/meta-ads/quality';
import { openSessionOf } from '@/lib/server/credentials';
import { DomainError } from '@/lib/server/errors';
import * as repo from '@/lib/server/repos/conversions';

/**
 * A conversion's match quality: the share of its events carrying each match key (counted by the
 * worker into the hour documents), what would raise it, and the platform's own measure beside it.
 */
export async function conversionQuality(orgId: string, id: string): Promise<ConversionQuality> {
  const conversion = await repo.getConversion(orgId, id);
  const { day, week, lastRequest } = await repo.matchQualityData(orgId, id);
  const platform = conversion.destination.platform;
  return {
    platform,
    keys: matchKeysTakenBy(platform),
    day,
    week,
    advice: qualityAdvice(week.events > 0 ? week : day, platform, conversion.source.type, conversion.mapping.identifiers),
    platformMeasure: await platformMeasureOf(orgId, conversion, lastRequest),
  };
}

/** Asks the platform for its own figure; a refusal or an outage becomes words on the page, never a failed page. */
async function platformMeasureOf(
  orgId: string,
  conversion: Conversion,
  lastRequest: { id: string; at: string } | null,
): Promise<PlatformMeasure> {
  const { platform, destinationId, targetId } = conversion.destination;
  // Meta and Google Ads report match quality of their own; any other platform is not asked.
  if (platform !== 'meta_ads' && platform !== 'google_ads')
    return { status: 'not_reported', message: 'This platform reports no match quality of its own.' };
  if (platform === 'google_ads' && !lastRequest)
    return { status: 'not_reported', message: 'Google Ads reports on requests: none has been delivered yet.' };
  try {
    const { session } = await openSessionOf(orgId, 'destination', destinationId);
    return platform === 'meta_ads'
      ? await readDatasetQuality(session.accessToken, targetId)
      : await readRequestStatus(session.accessToken, { id: lastRequest!.id, at: lastRequest!.at || null });
  } catch (error) {
    if (error instanceof PlatformError || error instanceof DomainError) return { status: 'unavailable', message: error.message };
    throw error;
  }
}
