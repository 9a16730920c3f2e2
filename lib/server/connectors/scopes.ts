import { PLATFORMS_OF_KIND, type IntegrationKind, type Platform } from '@/lib/shared/integrations/platforms';
import { bigQueryConfig } from '@/lib/server/connectors/bigquery/config';
import { googleAdsConfig } from '@/lib/server/connectors/google-ads/config';
import { metaConfig } from '@/lib/server/connectors/meta/config';
import { microsoftConfig } from '@/lib/server/connectors/microsoft-ads/config';

/**
 * The scopes each platform's consent asks for, per kind, read off the connectors' own constants (the
 * ones their consent URLs are built from), so a login granted for one kind can be checked against what
 * another kind needs. Today every platform asks the same scopes for sources and destinations.
 */
const SCOPES_OF: Partial<Record<Platform, () => readonly string[]>> = {
  google_ads: () => googleAdsConfig().scopes,
  meta_ads: () => metaConfig().scopes,
  microsoft_ads: () => microsoftConfig().scope.split(' '),
  bigquery: () => bigQueryConfig().scopes,
};

/** The scopes the consent of `platform` asks for when connecting it as `kind` (none if it cannot be one). */
export function scopesAskedFor(platform: Platform, kind: IntegrationKind): readonly string[] {
  return PLATFORMS_OF_KIND[kind].includes(platform) ? (SCOPES_OF[platform]?.() ?? []) : [];
}

/** What `to` needs beyond what a login consented for `from` was asked for. */
export function missingScopes(platform: Platform, from: IntegrationKind, to: IntegrationKind): string[] {
  const granted = new Set(scopesAskedFor(platform, from));
  return scopesAskedFor(platform, to).filter((scope) => !granted.has(scope));
}
