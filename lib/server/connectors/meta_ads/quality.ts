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

/** Meta's identifier names (match_key_feedback, diagnostics) in a marketer's words. */
const IDENTIFIER_WORDS: Record<string, string> = {
  email: 'Email',
  phone: 'Phone',
  first_name: 'First name',
  last_name: 'Last name',
  city: 'City',
  state: 'State',
  zip_code: 'Postal code',
  country: 'Country',
  date_of_birth: 'Date of birth',
  gender: 'Gender',
  external_id: 'Your customer id',
  ip_address: 'IP address',
  user_agent: 'Browser (user agent)',
  fbc: 'Ad click id (fbc)',
  fbp: 'Browser id (fbp)',
};

/** "zip_code" → "Postal code"; a name we do not know, with its underscores as spaces. */
export const identifierWords = (identifier: string) =>
  IDENTIFIER_WORDS[identifier] ?? identifier.replace(/_/g, ' ').replace(/^./, (first) => first.toUpperCase());

/** The identifier a diagnostic is about, by the words of its name ("Invalid email values", "Missing IP address"). */
function identifierIn(name: string): string | null {
  const text = name.toLowerCase().replace(/_/g, ' ');
  const found = Object.keys(IDENTIFIER_WORDS).find(
    (identifier) => text.includes(identifier.replace(/_/g, ' ')) || text.includes(IDENTIFIER_WORDS[identifier]!.toLowerCase()),
  );
  return found ?? null;
}

/**
 * A diagnostic in a marketer's words: what share of the event's events had what, and what to look at, without
 * Meta's developer instructions (we normalise and hash every key as Meta documents it; a value that still matches
 * no one was not a real one, or came from another sender of the pixel). Meta's own words stay beside it.
 */
export function diagnosticInWords(diagnostic: { name: string; percentage: number | null }, eventName: string): string {
  const share = diagnostic.percentage === null ? 'Some' : `${diagnostic.percentage} %`;
  const identifier = identifierIn(diagnostic.name);
  // "email", "postal code"; "IP address" keeps its capitals.
  const key = identifier ? identifierWords(identifier).replace(/^([A-Z])(?![A-Z])/, (first) => first.toLowerCase()) : null;
  const a = key && /^[aeiou]/i.test(key) ? 'an' : 'a';
  if (key && /invalid|format|normali|hash/i.test(diagnostic.name))
    return `${share} of the ${eventName} events Meta received had ${a} ${key} it could not use. SignalBridge puts each ${key} in the form Meta asks before sending, so check that the field it reads holds a real ${key} (not a placeholder or a test value), and whether another tool sends ${eventName} to this pixel too.`;
  if (key && /missing|without|no /i.test(diagnostic.name))
    return `${share} of the ${eventName} events Meta received had no ${key}. “What would raise it” above says where this conversion can take it from.`;
  return `${share} of the ${eventName} events Meta received: ${diagnostic.name}.`;
}

/** The Dataset Quality answer as the page shows it. */
export function parseDatasetQuality(body: Record<string, unknown>): PlatformMeasure {
  const events = list(body.web)
    .map((item) => {
      const emq = (item.event_match_quality ?? {}) as Record<string, unknown>;
      const eventName = text(item.event_name) ?? 'All events';
      return {
        eventName,
        score: numberOr(emq.composite_score),
        keys: list(emq.match_key_feedback)
          .map((key) => {
            const identifier = text(key.identifier) ?? '';
            return {
              identifier,
              label: identifierWords(identifier),
              percentage: numberOr((key.coverage as Record<string, unknown>)?.percentage),
            };
          })
          .filter(
            (key): key is { identifier: string; label: string; percentage: number } => Boolean(key.identifier) && key.percentage !== null,
          ),
        diagnostics: list(emq.diagnostics)
          .map((diagnostic) => ({
            name: text(diagnostic.name) ?? '',
            solution: text(diagnostic.solution),
            percentage: numberOr(diagnostic.percentage),
          }))
          .filter((diagnostic) => diagnostic.name)
          .map((diagnostic) => ({ ...diagnostic, text: diagnosticInWords(diagnostic, eventName) })),
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
