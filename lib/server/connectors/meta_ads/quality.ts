import { metaConfig } from '@/lib/server/connectors/meta_ads/config';
import { metaAdsError } from '@/lib/server/connectors/meta_ads/errors';
import { bearer, requestJson } from '@/lib/server/connectors/http';
import type { PlatformMeasure } from '@/lib/shared/conversions/quality';

/**
 * Meta's own measure of what a pixel (dataset) receives: the Dataset Quality API's Event Match
 * Quality per event name (docs: developers.facebook.com/docs/marketing-api/conversions-api/dataset-quality-api).
 *
 *   GET {graph}/{version}/dataset_quality?dataset_id={pixel}&agent_name=signalbridge&fields=…
 *   → { web: [{ event_name, event_match_quality: { composite_score, match_key_feedback: [{ identifier,
 *        coverage: { percentage } }], diagnostics: [{ name, solution, percentage, … }] } }] }
 *
 * Read defensively (Meta leaves out what it has not computed): a missing score is null, an event
 * without any figure is skipped, an empty `web` means Meta reports nothing yet.
 */
export const DATASET_QUALITY_FIELDS =
  'web{event_name,event_match_quality{composite_score,match_key_feedback{identifier,coverage{percentage}},diagnostics{name,solution,percentage}}}';

const numberOr = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value)
    ? value
    : typeof value === 'string' && value.trim() && Number.isFinite(Number(value))
      ? Number(value)
      : null;
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);
const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((item): item is Record<string, unknown> => Boolean(item) && typeof item === 'object') : [];

/** The Dataset Quality answer as the page shows it. */
export function parseDatasetQuality(body: Record<string, unknown>): PlatformMeasure {
  const events = list(body.web)
    .map((item) => {
      const emq = (item.event_match_quality ?? {}) as Record<string, unknown>;
      return {
        eventName: text(item.event_name) ?? 'All events',
        score: numberOr(emq.composite_score),
        keys: list(emq.match_key_feedback)
          .map((key) => ({
            identifier: text(key.identifier) ?? '',
            percentage: numberOr((key.coverage as Record<string, unknown>)?.percentage),
          }))
          .filter((key): key is { identifier: string; percentage: number } => Boolean(key.identifier) && key.percentage !== null),
        diagnostics: list(emq.diagnostics)
          .map((diagnostic) => ({
            name: text(diagnostic.name) ?? '',
            solution: text(diagnostic.solution),
            percentage: numberOr(diagnostic.percentage),
          }))
          .filter((diagnostic) => diagnostic.name),
      };
    })
    .filter((event) => event.score !== null || event.keys.length > 0 || event.diagnostics.length > 0);
  if (events.length === 0) return { status: 'not_reported', message: 'Meta reports no Event Match Quality for this pixel yet.' };
  return { status: 'reported', kind: 'event_scores', events };
}

/** Reads the pixel's Event Match Quality with the destination's login; Meta's refusals are classified as for deliveries. */
export async function readDatasetQuality(accessToken: string, datasetId: string): Promise<PlatformMeasure> {
  const query = new URLSearchParams({ dataset_id: datasetId, agent_name: 'signalbridge', fields: DATASET_QUALITY_FIELDS });
  const { status, body } = await requestJson('meta_ads', `${metaConfig().graphUrl}/dataset_quality?${query}`, {
    headers: bearer(accessToken),
  });
  if (status !== 200) throw metaAdsError(status, body);
  return parseDatasetQuality(body);
}
