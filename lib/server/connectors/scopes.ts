import { PLATFORMS_OF_KIND, type IntegrationKind, type Platform } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';

/**
 * The scopes each platform's consent asks for, per kind, read off the connectors' own `oauth.scopes`
 * (the ones their consent URLs are built from), so a login granted for one kind can be checked against
 * what another kind needs. Today every platform asks the same scopes for sources and destinations.
 */

/** The scopes the consent of `platform` asks for when connecting it as `kind` (none if it cannot be one). */
export function scopesAskedFor(platform: Platform, kind: IntegrationKind): readonly string[] {
  return PLATFORMS_OF_KIND[kind].includes(platform) ? (connectorFor(platform).auth.oauth?.scopes() ?? []) : [];
}

/** What `to` needs beyond what a login consented for `from` was asked for. */
export function missingScopes(platform: Platform, from: IntegrationKind, to: IntegrationKind): string[] {
  const granted = new Set(scopesAskedFor(platform, from));
  return scopesAskedFor(platform, to).filter((scope) => !granted.has(scope));
}
