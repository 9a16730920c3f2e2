import type { ConversionEvent, RowOutcome } from '@/lib/shared/conversions/event';
import type { MappingNeeds } from '@/lib/shared/conversions/mappingNeeds';
import type { PlatformMeasure } from '@/lib/shared/conversions/quality';
import type { AdLevel, AdRow } from '@/lib/shared/connections/rows';
import type { WarehouseSource } from '@/lib/shared/conversions/conversion';
import type { AdAccount, AdPlatform, ConversionTarget, Platform } from '@/lib/shared/integrations/platforms';

/**
 * The one interface every platform implements (docs/architecture/recipes.md, "Add a platform"): how a login
 * is made (OAuth consent or a pasted key), how a stored credential becomes a session, what it can
 * reach, and — declared now, implemented by the pipelines later — reading ad data, delivering
 * conversions and writing rows. Connectors import neither firebase-admin nor repos.
 */

/** Every platform of the catalogue, plus Stripe (payments as a conversion source). */
export type ConnectorId = Platform | 'stripe';

/** What is sealed in `credentials/{id}`: only what it takes to get an access token. */
export interface StoredCredential {
  type: string;
}

/** A login that works right now. */
export interface Session<C extends StoredCredential = StoredCredential> {
  accessToken: string;
  /** Set when the platform rotated the credential; it must be saved. */
  rotated: C | null;
  /** When the access token stops working (epoch ms), as the platform said (`expires_in`); unknown: undefined. */
  expiresAt?: number;
}

/** A finished consent or key check: what to seal, and how to name the login. */
export interface Connection<C extends StoredCredential> {
  credential: C;
  accountName: string;
  /** Accounts known from the credential itself (a service account's project). */
  accounts?: AdAccount[];
  /** Settings to keep with the object (Mixpanel project and residency). */
  settings?: Record<string, string>;
}

/** OAuth 2.0 authorization code: the consent URL, then the code traded for a lasting credential. */
export interface OAuthAuth<C extends StoredCredential> {
  /** The scopes its consent asks for (the ones `authorizeUrl` names), so one login's grant can be checked against another kind's needs. */
  scopes(): readonly string[];
  authorizeUrl(state: string, redirectUri: string): string;
  exchangeCode(code: string, redirectUri: string): Promise<Connection<C>>;
}

/** Credentials the user pastes, checked with the platform before they are saved. */
export interface KeyAuth<C extends StoredCredential> {
  /** The form field a refused key is reported on. */
  field: string;
  connect(input: Record<string, string>): Promise<Connection<C>>;
}

/** One account's ad performance for a window of days (the account's own days), at a level. */
export interface ReportRequest {
  account: AdAccount;
  level: AdLevel;
  /** First and last day, inclusive, YYYY-MM-DD. */
  from: string;
  to: string;
  /** Counts each request made to the platform (the run history shows API calls). */
  onCall?: () => void;
}

/**
 * Reading ad performance. `report` yields pages of rows as the platform streams or pages them, so a
 * long window is never held whole; it throws a PlatformError (`needs_reauth`, `rate_limited` with
 * `retryAt` when the platform says when, `retryable`, `forbidden`) when the account cannot be read.
 */
export type Report = (session: Session, request: ReportRequest) => AsyncIterable<AdRow[]>;

/**
 * What a platform reports it counted of the conversions sent to some targets of one account, per day
 * (docs/PLATFORMS.md, "Counted by the platform"): one request answers every target of the account.
 */
export interface CountedRequest {
  account: AdAccount;
  /**
   * The targets (pixel, conversion action, goal) and the event names each conversion sends there: its named
   * events, or those it delivered lately. A platform that counts by event name (Meta) reads only these; none: no
   * figure of its events (never the target's every name, which other senders fill).
   */
  targets: Array<{ id: string; name: string; events: string[] }>;
  /**
   * First and last day, inclusive, YYYY-MM-DD: UTC days ending on `now`'s. A read that knows its
   * account's time zone reads as many days ending on the account's own today instead, and says so
   * (CountedRead).
   */
  from: string;
  to: string;
  /** The reading's "now" (the account's today is taken at it); the wall clock unless given. */
  now?: Date;
  onCall?: () => void;
}

/**
 * One target's day: what the platform received (null where it reports none) and attributed. `received` counts
 * every event of ours those names sent there, and maybe other senders' (Meta's pixel stats): never fewer than ours
 * unless some of ours never arrived, which is the one thing it is compared for.
 */
export interface CountedRow {
  targetId: string;
  /** The event names the figures are for (as asked), when the target has several (Meta), else null. */
  events: string[] | null;
  date: string;
  received: number | null;
  attributed: number;
}

/** Rows whose days are the account's days in `timeZone` (IANA), the days the platform reports in. */
export interface CountedRead {
  timeZone: string;
  rows: CountedRow[];
}

/**
 * Reads counted conversions; throws a PlatformError as `report` does (`needs_reauth`: the login lacks
 * reporting). Plain rows are UTC days; a CountedRead names the account's time zone its rows' days are in.
 */
export type ReadCounted = (session: Session, request: CountedRequest) => Promise<CountedRow[] | CountedRead>;

/**
 * Conversions to one target (a Meta pixel, a Google Ads conversion action, a Microsoft goal).
 * `check` catches before sending what the platform would refuse, so one stale row does not sink a
 * batch. `send` answers per row; it throws a PlatformError when the request as a whole failed:
 * `needs_reauth` (the login is dead), `rate_limited` / `retryable` (try again later), `invalid`
 * (the platform refused the whole request: the caller splits the batch to find the bad rows).
 */
export interface Delivery {
  /** How many events the platform takes in one request. */
  maxBatch: number;
  /**
   * What a conversion's mapping must send for any event to pass `check`: a save without it is refused
   * (`unmetMappingNeeds`). Absent: the destination keeps whatever it is given (BigQuery, Mixpanel).
   */
  needs?: MappingNeeds;
  /** Why the platform would refuse this event, or null when it may be sent. */
  check(event: ConversionEvent, now: Date): string | null;
  send(
    session: Session,
    account: AdAccount,
    target: ConversionTarget,
    events: ConversionEvent[],
    options?: DeliveryOptions,
  ): Promise<RowOutcome[]>;
}

export interface DeliveryOptions {
  /** Meta's test_event_code (Events Manager's Test events tab); others validate only. */
  testCode?: string;
  /** Told the platform's id of a request it took (Data Manager's requestId), for its diagnostics later. */
  onRequest?: (requestId: string) => void;
}

/** Where a connection's rows go: a BigQuery dataset's table, or a Mixpanel project. */
export interface WriteTarget {
  /** BigQuery project, or Mixpanel project id. */
  projectId: string;
  dataset?: string;
  table?: string;
  /** Mixpanel data residency (US, EU, IN). */
  residency?: string;
}

/** The rows one job replaces: one connection's account over a window of days. */
export interface AdDataSlice {
  connectionId: string;
  platform: AdPlatform;
  accountId: string;
  from: string;
  to: string;
}

export interface WriteResult {
  written: number;
  /** Requests made to the destination. */
  calls: number;
  /** Rows the destination refused, with its reason (Mixpanel's failed_records). */
  failed: Array<{ key: string; message: string }>;
}

/**
 * Writing ad performance to a warehouse or analytics destination, idempotently: `replace` leaves
 * exactly the given rows for the slice (a rerun of the same window leaves one row per key, with the
 * newest values). `check` says in words what it found (the dataset exists and is writable, the
 * credentials are accepted) and throws a PlatformError when the destination cannot be written.
 */
export interface AdDataWriter {
  check(session: Session, target: WriteTarget): Promise<string>;
  replace(session: Session, target: WriteTarget, slice: AdDataSlice, rows: AdRow[]): Promise<WriteResult>;
}

/** A column (or property) of what a conversion source reads, with its type as the platform names it. */
export interface SourceColumn {
  name: string;
  type: string;
}

/** What a conversion source reads, known without reading its rows (a dry run). */
export interface SourceDescription {
  columns: SourceColumn[];
  /** The columns that hold a point in time (suggested for the event time). */
  timeColumns: string[];
  /** What a read of everything would process now, as the platform says (BigQuery's dry run). */
  bytesProcessed: number | null;
}

/** One page of a read: each row with its cursor value (as text), and the bytes the page billed (0 where none). */
export interface SourcePage {
  rows: Array<{ cursor: string; row: Record<string, unknown> }>;
  bytesBilled: number;
}

/**
 * Reading a platform as a conversion source (the catalogue's `conversionSource`), with the login of one
 * of its destinations, as Airbyte's CDK source does: what it reads, its first rows, and pages of rows
 * from a cursor value on. Methods throw a PlatformError as `report` does. Method syntax on purpose: a
 * connector reads its own platform's settings (`S`).
 */
export interface RowSource<S extends WarehouseSource = WarehouseSource> {
  /** Rows arrive in cursor order (the cursor may be saved after every page); else it is saved at the end. */
  ordered: boolean;
  /** The read reports bytes billed (BigQuery); else its summary has none. */
  bills: boolean;
  /** Orders two cursor values (unordered sources). */
  compare(left: string, right: string): number;
  /** The source's field a refusal of what it reads is reported on (BigQuery's table or SQL); none: thrown as it is. */
  fieldOf?(source: S): string;
  /** The account of the destination the read runs in (BigQuery's project): one of the destination's picked accounts. */
  accountOf?(source: S): { field: string; id: string };
  /**
   * What it reads, checked without reading (free). Absent: only its rows say (Mixpanel's properties),
   * and the preview's columns are the rows' own.
   */
  describe?(session: Session, source: S): Promise<SourceDescription>;
  /** Why a column cannot be the cursor, or null when it can (sources whose cursor the user picks). */
  cursorProblem?(columns: SourceColumn[], name: string): string | null;
  /** The first rows, in cursor order where one is picked. */
  preview(session: Session, source: S, limit: number): Promise<Array<Record<string, unknown>>>;
  /** Rows whose cursor is at or past `from` (all when null), page by page; `pageRows` sizes pages where the platform pages. */
  read(session: Session, source: S, from: string | null, options?: { pageRows?: number }): AsyncIterable<SourcePage>;
  /** What a read covers: when it changes, the read starts over (an edit of anything else keeps the cursor). */
  coverage(source: S): unknown[];
}

/**
 * The platform's own figure for the quality of what it received (Meta's Event Match Quality per event of a
 * pixel, Google's diagnostics of the last request), shown beside our counts; throws a PlatformError when it
 * cannot be read.
 */
export interface QualityRead {
  /** It reports on a request we sent (Google's diagnostics), not on the target: nothing before a first delivery. */
  needsLastRequest: boolean;
  read(session: Session, targetId: string, lastRequest: { id: string; at: string | null } | null): Promise<PlatformMeasure>;
}

// Method syntax on purpose: a Connector<GoogleCredential> is used where a Connector of any credential is.
export interface Connector<C extends StoredCredential = StoredCredential> {
  id: ConnectorId;
  auth: { oauth?: OAuthAuth<C>; key?: KeyAuth<C> };
  /** An access token for a stored credential; throws PlatformError('needs_reauth') when it is dead. */
  openSession(credential: C): Promise<Session<C>>;
  /** The accounts a login can reach: ad accounts, or BigQuery projects. */
  listAccounts(session: Session): Promise<AdAccount[]>;
  /** Where conversions of an ad account can go: conversion actions, pixels or goals. */
  listTargets(session: Session, account: AdAccount): Promise<ConversionTarget[]>;
  report?: Report;
  /** What the platform counted of the conversions we sent (reconciliation). */
  counted?: ReadCounted;
  /** Its counted read reports what it received, so a day it does not list received none (Meta); else unknown. */
  countsReceived?: true;
  /** Its own match-quality figure (absent: the platform reports none). */
  quality?: QualityRead;
  deliver?: Delivery;
  writer?: AdDataWriter;
  /** Read as a conversion source (platforms with the catalogue's `conversionSource`). */
  source?: RowSource;
}
