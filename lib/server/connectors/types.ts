import type { AdAccount, ConversionTarget, Platform } from '@/lib/shared/integrations/platforms';

/**
 * The one interface every platform implements (docs/ARCHITECTURE.md, "add a platform"): how a login
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
  authorizeUrl(state: string, redirectUri: string): string;
  exchangeCode(code: string, redirectUri: string): Promise<Connection<C>>;
}

/** Credentials the user pastes, checked with the platform before they are saved. */
export interface KeyAuth<C extends StoredCredential> {
  /** The form field a refused key is reported on. */
  field: string;
  connect(input: Record<string, string>): Promise<Connection<C>>;
}

/** One day's figures of one campaign (the ad-data sync engine fills this in). */
export interface ReportRow {
  date: string;
  accountId: string;
  campaignId: string;
  values: Record<string, number | string | null>;
}

export interface ReportRequest {
  account: AdAccount;
  from: string;
  to: string;
}

/** One conversion sent to a target (the conversion pipeline fills this in). */
export interface ConversionEvent {
  id: string;
  occurredAt: string;
  value?: number | null;
  currency?: string | null;
  identifiers: Record<string, string>;
}

/** Per event: delivered, or the domain error code that says whether to retry. */
export interface DeliveryResult {
  id: string;
  ok: boolean;
  error?: { code: string; message: string };
}

export interface Delivery {
  /** How many events the platform takes in one request. */
  maxBatch: number;
  send(session: Session, account: AdAccount, target: ConversionTarget, events: ConversionEvent[]): Promise<DeliveryResult[]>;
}

/** Rows for a warehouse or analytics destination. */
export interface WriteRequest {
  table: string;
  rows: Array<Record<string, unknown>>;
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
  report?(session: Session, request: ReportRequest): Promise<ReportRow[]>;
  deliver?: Delivery;
  write?(session: Session, request: WriteRequest): Promise<void>;
}
