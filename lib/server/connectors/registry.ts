import { bigQuery } from '@/lib/server/connectors/bigquery';
import { googleAds } from '@/lib/server/connectors/google_ads';
import { metaAds } from '@/lib/server/connectors/meta_ads';
import { microsoftAds } from '@/lib/server/connectors/microsoft_ads';
import { linkedinAds } from '@/lib/server/connectors/linkedin_ads';
import { mixpanel } from '@/lib/server/connectors/mixpanel';
import { stripe } from '@/lib/server/connectors/stripe';
import { tiktokAds } from '@/lib/server/connectors/tiktok_ads';
import type { Connector, ConnectorId, KeyAuth, OAuthAuth, RowSource, StoredCredential } from '@/lib/server/connectors/types';

/** Every connector by platform, one line per folder of lib/server/connectors/ (services reach a platform through it). */
const CONNECTORS = {
  google_ads: googleAds,
  meta_ads: metaAds,
  microsoft_ads: microsoftAds,
  linkedin_ads: linkedinAds,
  tiktok_ads: tiktokAds,
  bigquery: bigQuery,
  mixpanel,
  stripe,
} satisfies Record<ConnectorId, Connector<StoredCredential>>;

type CredentialOf<T> = T extends Connector<infer C> ? C : never;

/** What may be sealed in `credentials/{id}`: the credential of any connector. */
export type Credential = CredentialOf<(typeof CONNECTORS)[ConnectorId]>;

/** Every connector id, for checks that each platform has one. */
export const CONNECTOR_IDS = Object.keys(CONNECTORS) as ConnectorId[];

/** The connector of a platform (or of Stripe payments). */
export function connectorFor(id: ConnectorId): Connector<Credential> {
  return CONNECTORS[id] as Connector<Credential>;
}

/** The consent flow of a platform connected with OAuth; a platform without one is a programming error. */
export function oauthOf(id: ConnectorId): OAuthAuth<Credential> {
  const oauth = connectorFor(id).auth.oauth;
  if (!oauth) throw new Error(`${id} is not connected with OAuth`);
  return oauth;
}

/** The key check of a platform connected with pasted credentials. */
export function keyAuthOf(id: ConnectorId): KeyAuth<Credential> {
  const key = connectorFor(id).auth.key;
  if (!key) throw new Error(`${id} is not connected with a key`);
  return key;
}

/** How a platform is read as a conversion source; a platform without one (not `conversionSource` in the catalogue) is a programming error. */
export function rowSourceOf(id: ConnectorId): RowSource {
  const source = connectorFor(id).source;
  if (!source) throw new Error(`${id} is not read as a conversion source`);
  return source;
}
