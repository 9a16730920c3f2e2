import type { PlatformErrorCode } from '@/lib/server/connectors/errors';
import type { AdDataSlice, ConnectorId, WriteTarget } from '@/lib/server/connectors/types';
import type { PersonInput } from '@/lib/server/delivery/normalize';
import type { AdLevel, AdRow } from '@/lib/shared/connections/rows';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { AdAccount, ConversionTarget } from '@/lib/shared/integrations/platforms';
import type { FakePlatforms } from '@/sandbox/platforms';

/**
 * What one platform documents, for the contract suite (tests/contract/connectors.test.ts) to hold its
 * connector to, against the platform's fake: each platform's case sits in its fake's folder
 * (sandbox/<slug>/contract.ts) and says where each fact is documented. Adding a platform is adding
 * its case to tests/contract/cases.ts; the suite stays as it is.
 */

/** A request as it left the connector, recorded by the proxy in front of the fake. */
export interface SentRequest {
  method: string;
  /** The path on the fake (its route for the platform's API, e.g. /meta/graph/v27.0/…). */
  path: string;
  query: Record<string, string>;
  /** Lowercased names. */
  headers: Record<string, string>;
  /** The JSON body parsed; any other body as text; none: null. */
  body: unknown;
}

/** An answer the proxy gives instead of the fake's. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A person in clear, as a source gives them: the suite hashes them as ingest does (hashPerson). */
export type Person = PersonInput;

/** What a connector can do that the suite checks: deliver conversions, read ad performance, write rows. */
export type Capability = 'deliver' | 'report' | 'writer';

/** How the suite logs in on the fake: the OAuth consent (Allow), or the key form's fields. */
export type Login = { consent: true } | { key: (fake: FakePlatforms) => Record<string, string> };

/**
 * The version an API is pinned to (its connector folder's version.ts), as it shows on the wire: a
 * segment of the path, or a header's value (LinkedIn's `LinkedIn-Version`; the name lowercased). `version`
 * null: the platform documents no version for this API.
 */
export interface PinnedApi {
  api: string;
  /** Which requests are this API's (by their path on the fake). */
  requests: RegExp;
  version: { path: string } | { header: string; value: string } | null;
}

/** A refusal the platform documents (status and body in its error shape), and the PlatformError kind it is. */
export interface Refusal {
  /** What it is, in the platform's words. */
  what: string;
  during: Capability;
  answer: Answer;
  kind: PlatformErrorCode;
}

/** One identifier of an event on the wire, and the documented form it must have for the person it came from. */
export interface WireIdentifier {
  name: string;
  /** Its value in one event as sent (absent: undefined or null). */
  read: (event: unknown) => unknown;
  /** The value the platform documents for this person (the hash of the normalised value); undefined: not sent. */
  expected: (person: Person) => string | undefined;
}

/** Conversions to a target of the fake. */
export interface DeliverCase {
  account: AdAccount;
  target: ConversionTarget;
  /** The most events the platform takes in one request, as documented. */
  maxEvents: number;
  /** The n-th event, without its person (the suite adds the hashed identifiers): what the platform needs besides. */
  event: (n: number) => Omit<ConversionEvent, 'user' | 'address'>;
  /** The events a request carries, in the order given (none: not a delivery request). */
  eventsOf: (request: SentRequest) => unknown[];
  identifiers: WireIdentifier[];
}

/** A window of ad performance to read twice. */
export interface ReportCase {
  account: AdAccount;
  level: AdLevel;
  /** First and last day, YYYY-MM-DD (a past window: its figures are settled). */
  window: () => { from: string; to: string };
}

/** A slice of rows to replace twice, and how the fake shows what the destination holds. */
export interface WriterCase {
  target: WriteTarget;
  slice: AdDataSlice;
  rows: AdRow[];
  /** The slice's rows as the destination holds them, without what changes on every write (a write time). */
  stored: (fake: FakePlatforms) => Array<Record<string, unknown>>;
}

export interface ContractCase {
  id: ConnectorId;
  login: Login;
  apis: PinnedApi[];
  refusals: Refusal[];
  deliver?: DeliverCase;
  report?: ReportCase;
  writer?: WriterCase;
  /** A capability the connector has that the suite does not check here, and why. */
  unchecked?: Partial<Record<Capability, string>>;
}
