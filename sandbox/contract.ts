import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { ConnectorId } from '@/lib/server/connectors/types';
import type { VersionedPlatform } from '@/lib/server/connectors/versions';
import type { ConversionPlatform, ReceivedConversion } from '@/sandbox/conversions';
import type { Provider } from '@/sandbox/store';

/**
 * What a platform documents that every connector to it must honour, written once per platform beside its fake
 * (`sandbox/<platform>/contract.ts`) and checked by one suite over all of them
 * (tests/api/connectorContract.test.ts). Each figure names the page it comes from.
 */
export interface ContractCase {
  platform: ConnectorId;
  /** The provider whose consent the login goes through, and whose logins a revocation kills. */
  provider: Provider;
  /** The key the fake records received conversions under. */
  received: ConversionPlatform;
  /** The pinned API (connectors/versions.ts) every request must name. */
  version: VersionedPlatform;
  /** The version a request names, read off its URL; null for a request that is not to this API (a token, a consent). */
  versionOf(url: URL): string | null;
  /** The most events one conversions request may carry, as the platform documents it, and where. */
  maxEvents: { count: number; source: string };
  /** A valid conversion to this platform, carrying `user` (hashed by the product) and the platform's click id. */
  event(serial: number, user: ConversionEvent['user']): ConversionEvent;
  /** What of an event the fake's dedup key holds (sandbox/conversions.ts): its id, or its click id. */
  keyPartOf(event: ConversionEvent): string;
  /** The hashed email and phone as the platform received them. */
  identifiersOf(received: ReceivedConversion): { email: string | null; phone: string | null };
  /** The documented form of an email and an E.164 phone before hashing, and where it is documented. */
  form: { email(raw: string): string; phone(e164: string): string; source: string };
}
