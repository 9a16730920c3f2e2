/**
 * The sandbox's Dataset Quality API (`GET /dataset_quality`): Event Match Quality per pixel and event
 * name, from what the Conversions API matched (sandbox/meta_ads/delivery.ts). Every read is counted:
 * each spends the customer's quota.
 */
import type { ServerResponse } from 'node:http';
import { metaAdsError, META_PIXELS } from '@/sandbox/meta_ads/accounts';
import { json } from '@/sandbox/server';
import type { SandboxStore } from '@/sandbox/store';

/** The identifier names the Dataset Quality API reports for user_data keys. */
const META_IDENTIFIER_NAMES: Record<string, string> = {
  em: 'email',
  ph: 'phone',
  fn: 'first_name',
  ln: 'last_name',
  ct: 'city',
  st: 'state',
  zp: 'zip_code',
  country: 'country',
  db: 'date_of_birth',
  ge: 'gender',
  external_id: 'external_id',
  client_ip_address: 'ip_address',
  client_user_agent: 'user_agent',
  fbc: 'fbc',
  fbp: 'fbp',
};

/**
 * The Dataset Quality API (`GET /dataset_quality?dataset_id=…&fields=web{event_match_quality,event_name}`):
 * per event name, Event Match Quality as Meta shapes it: a composite score (0–10; here the share of
 * events whose every identifier matched a known person, times 10), each identifier's coverage (the
 * share of events carrying it) and a diagnostic for each identifier whose values matched nobody.
 */
export function datasetQuality(store: SandboxStore, res: ServerResponse, url: URL) {
  const datasetId = url.searchParams.get('dataset_id') ?? '';
  store.matches.countRead('meta', datasetId);
  if (!datasetId) return metaAdsError(res, 400, 100, '(#100) The parameter dataset_id is required');
  const known = Object.values(META_PIXELS).some((pixels) => pixels.some((pixel) => pixel.id === datasetId));
  if (!known) {
    return metaAdsError(
      res,
      400,
      100,
      `Unsupported get request. Object with ID '${datasetId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      33,
    );
  }
  const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : 0);
  const web = store.matches.list({ platform: 'meta', target: datasetId }).map((entry) => {
    const feedback = [
      ...Object.entries(entry.keys).map(([key, counts]) => ({
        identifier: META_IDENTIFIER_NAMES[key] ?? key,
        coverage: { percentage: percent(counts.sent, entry.events) },
      })),
      ...Object.entries(entry.present).map(([key, count]) => ({
        identifier: META_IDENTIFIER_NAMES[key] ?? key,
        coverage: { percentage: percent(count, entry.events) },
      })),
    ];
    const diagnostics = Object.entries(entry.keys)
      .filter(([, counts]) => counts.matched < counts.sent)
      .map(([key, counts]) => ({
        name: `Invalid ${META_IDENTIFIER_NAMES[key] ?? key} values`,
        description: `${counts.sent - counts.matched} of ${counts.sent} ${META_IDENTIFIER_NAMES[key] ?? key} values sent match no one: they were not normalised as Meta's customer information parameters require before hashing.`,
        solution: `Normalise ${key} as Meta documents it, then hash it with SHA-256.`,
        percentage: percent(counts.sent - counts.matched, counts.sent),
        affected_event_count: counts.sent - counts.matched,
        total_event_count: entry.events,
      }));
    return {
      event_name: entry.eventName,
      event_match_quality: {
        composite_score: Math.round((entry.matched / entry.events) * 100) / 10,
        match_key_feedback: feedback,
        ...(diagnostics.length ? { diagnostics } : {}),
      },
    };
  });
  return json(res, 200, { web });
}
