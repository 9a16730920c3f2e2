import type { Schedule } from '@/lib/shared/connections/connection';
import type { Identifier } from '@/lib/shared/conversions/identifiers';
import type { SourceSettings } from '@/lib/shared/integrations/apps';
import { isWarehousePlatform, type AdPlatform, type WarehousePlatform } from '@/lib/shared/integrations/platforms';
import { OUTCOMES } from '@/lib/shared/outcomes';

/**
 * A conversion: where events come from (an app's submissions, a payment account's successful
 * payments, rows of a BigQuery table or query, events of a Mixpanel project), which ad-platform
 * target receives them, and how they are mapped. The pages /{orgId}/createConversion, /conversion
 * and /conversion/{id}/configuration edit it.
 */

export type ConversionStatus = 'active' | 'paused' | 'needs_reauth';

/**
 * The conversion fields a warehouse row (a BigQuery column, a Mixpanel property) can fill. Event
 * time is required; identifiers already SHA-256 hex are passed through, the others hashed.
 */
export const COLUMN_FIELDS = [
  'eventId',
  'eventTime',
  'eventName',
  'email',
  'phone',
  'firstName',
  'lastName',
  'externalId',
  'city',
  'state',
  'postalCode',
  'countryCode',
  'dateOfBirth',
  'gender',
  'gclid',
  'fbclid',
  'fbc',
  'fbp',
  'msclkid',
  'li_fat_id',
  'ttclid',
  'ttp',
  'value',
  'currency',
] as const;
export type ColumnField = (typeof COLUMN_FIELDS)[number];
/** Which column (or property) fills each field; absent fields are left empty. */
export type ColumnMapping = Partial<Record<ColumnField, string>>;

export const COLUMN_FIELD_LABELS: Record<ColumnField, string> = {
  eventId: 'Event id',
  eventTime: 'Event time',
  eventName: 'Event name',
  email: 'Email',
  phone: 'Phone',
  firstName: 'First name',
  lastName: 'Last name',
  externalId: 'External id',
  city: 'City',
  state: 'State or region',
  postalCode: 'Postal code',
  countryCode: 'Country code (US, GB …)',
  dateOfBirth: 'Date of birth',
  gender: 'Gender (f or m)',
  gclid: 'Google click id (gclid)',
  fbclid: 'Meta click id (fbclid)',
  fbc: 'Meta click cookie (_fbc)',
  fbp: 'Meta browser cookie (_fbp)',
  msclkid: 'Microsoft click id (msclkid)',
  li_fat_id: 'LinkedIn click id (li_fat_id)',
  ttclid: 'TikTok click id (ttclid)',
  ttp: 'TikTok browser cookie (_ttp)',
  value: 'Value',
  currency: 'Currency',
};

/** BigQuery's cost guard by default: 1 GB billed per read (about $0.006 on demand). */
export const DEFAULT_MAXIMUM_BYTES_BILLED = 1_000_000_000;

/**
 * Rows of a BigQuery table, or of the user's own SELECT, read in the destination's project with its
 * login. Each scheduled read takes the rows whose cursor column is at or past the last one read.
 */
export interface BigQuerySource extends SourceSettings {
  type: 'bigquery';
  /** The BigQuery destination whose login reads (same credentials). */
  destinationId: string;
  /** The project the query job runs (and is billed) in. */
  projectId: string;
  mode: 'table' | 'sql';
  /** project.dataset.table, when mode is "table". */
  table: string;
  /** One SELECT statement, when mode is "sql". */
  sql: string;
  cursorColumn: string;
  maximumBytesBilled: number;
  columns: ColumnMapping;
  /** The event name when no column gives one (e.g. "Lead"). */
  eventName: string;
  schedule: Schedule;
}

/** Chosen events of a Mixpanel project, read through its Export API by day. */
export interface MixpanelSource extends SourceSettings {
  type: 'mixpanel';
  /** The Mixpanel destination whose service account reads. */
  destinationId: string;
  events: string[];
  columns: ColumnMapping;
  eventName: string;
  schedule: Schedule;
}

/** The settings of each platform the catalogue marks `conversionSource`: a new one fails to compile until it has its own. */
interface WarehouseSourceOf {
  bigquery: BigQuerySource;
  mixpanel: MixpanelSource;
}
/** A source read from a warehouse platform (BigQuery, Mixpanel), with one of its destinations' login. */
export type WarehouseSource = WarehouseSourceOf[WarehousePlatform];

export type ConversionSource = { type: 'app'; appId: string } | { type: 'payments'; paymentId: string } | WarehouseSource;

export const isWarehouseSource = (source: ConversionSource): source is WarehouseSource => isWarehousePlatform(source.type);

/**
 * How the queue and the stored conversion name a source: "app:{id}", "payments:{id}",
 * "bigquery:{destination id}" or "mixpanel:{destination id}". A warehouse read publishes its rows
 * for its own conversion only (the message names it), so two reads of one project stay apart.
 */
export function sourceKeyOf(source: ConversionSource): string {
  switch (source.type) {
    case 'app':
      return `app:${source.appId}`;
    case 'payments':
      return `payments:${source.paymentId}`;
    default:
      return `${source.type}:${source.destinationId}`;
  }
}

/** Where a warehouse read stands: what the configuration page shows. */
export interface ReadState {
  lastReadAt: string | null;
  nextReadAt: string | null;
  /** The cursor column's value the next read starts at (inclusive), as text. */
  cursor: string | null;
  /** The last read: rows read, events published, rows not sent, bytes billed (BigQuery). */
  last: { rows: number; published: number; notSent: number; bytesBilled: number | null } | null;
  /** Why the last read failed, in words; cleared by the next success. */
  error: string | null;
  /** A read is under way. */
  reading: boolean;
}

/** Where conversions go: an ad platform's target, or (for an app's routing) a Mixpanel project or a BigQuery table. */
export type ConversionPlatform = AdPlatform | 'mixpanel' | 'bigquery';

export interface ConversionDestination {
  destinationId: string;
  platform: ConversionPlatform;
  accountId: string;
  targetId: string;
  targetName: string;
}

export { IDENTIFIERS, type Identifier } from '@/lib/shared/conversions/identifiers';

export const IDENTIFIER_LABELS: Record<Identifier, string> = {
  email: 'Email (hashed)',
  phone: 'Phone (hashed)',
  name: 'First and last name (hashed)',
  address: 'Address: city, state, postal code, country (hashed)',
  dateOfBirth: 'Date of birth (hashed, Meta)',
  gender: 'Gender (hashed, Meta)',
  externalId: 'External id (hashed)',
  clickIds: 'Click ids (gclid, fbclid/fbc/fbp, msclkid, li_fat_id, ttclid/_ttp)',
  context: 'IP address and user agent',
};

export interface ConversionMapping {
  /** Event names to send; empty sends every event of the source. */
  events: string[];
  /** The value sent: the event's own, or a fixed amount. */
  value: { mode: 'event' } | { mode: 'fixed'; amount: number; currency: string };
  identifiers: Identifier[];
}

export interface DeliveryCounts {
  delivered: number;
  /** Not delivered: not sent (refused or unsendable) and failed (kept for Retry) together. */
  failed: number;
  /** Of `failed`, the events not sent (refused or unsendable): lib/shared/outcomes.ts splits them for people. */
  notSent?: number;
}

export interface Conversion {
  id: string;
  name: string;
  source: ConversionSource;
  destination: ConversionDestination;
  mapping: ConversionMapping;
  status: ConversionStatus;
  /** Why it needs reconnecting, in words. */
  statusReason: string | null;
  /** Set while the plan no longer includes it (paused until an upgrade): why, and the way out. */
  pausedByPlan?: string | null;
  /** Events kept, not dropped: held until Reconnect, failed until Retry. */
  parked: { held: number; failed: number };
  lastDeliveryAt: string | null;
  createdAt: string;
  /** Warehouse sources only. */
  read?: ReadState;
  /** Made by an app's routing to one platform (the app's platform page): every event of the app. */
  routing?: true;
}

/** One row of a delivery record, as the log shows it. */
export interface DeliveryRow {
  id: string;
  status: 'delivered' | 'rejected' | 'not_sent' | 'failed' | 'held';
  reason?: string;
  maskedEmail?: string;
}

/** One platform call (or one set of rows not sent): what the delivery log lists. */
export interface DeliveryRecord {
  id: string;
  at: string;
  test: boolean;
  /** Milliseconds the platform took; null when nothing was sent. */
  latencyMs: number | null;
  counts: Record<DeliveryRow['status'], number>;
  rows: DeliveryRow[];
}

/** An event the conversion's event-name filter left out (the log's search finds it). */
export interface FilteredEvent {
  eventId: string;
  name: string;
  /** The names the conversion takes. */
  wanted: string[];
  at: string;
}

/** The delivery log: its records, and for an event id no record holds, whether the filter left it out. */
export interface DeliveryLogAnswer {
  deliveries: DeliveryRecord[];
  filtered?: FilteredEvent;
  /** Asked for one day (`?day=`): the day, and the zone it is a day of (the counted days', the ad account's). */
  day?: { date: string; timeZone: string };
}

/** One row of a record opened: what was sent for it (hashed, as on the wire) and the platform's answer; null when nothing was kept. */
export interface DeliveryRowDetail {
  row: DeliveryRow;
  at: string;
  test: boolean;
  /** The row as sent, the platform's answer about it alone, and its answer to the whole call (any may be absent). */
  exchange: { sent?: unknown; answer?: unknown; requestAnswer?: unknown; tooLarge?: boolean } | null;
  /** Wire names of the fields shown hidden (the visitor's IP address, browser); an owner or admin may reveal them. */
  hidden?: string[];
}

/** “filtered out: 'Form Submitted' is not one of Lead, Purchase”. */
export const filteredInWords = (filtered: Pick<FilteredEvent, 'name' | 'wanted'>) =>
  `filtered out: '${filtered.name}' is not one of ${filtered.wanted.join(', ')}`;

export interface DeliveryHour {
  hour: string;
  delivered: number;
  /** Not sent and failed together (as `DeliveryCounts`). */
  failed: number;
  /** Of `failed`, the events not sent. */
  notSent?: number;
}

/** A row's status as people read it: the outcome's word (lib/shared/outcomes.ts); refused and unsendable rows are both "Not sent". */
export const DELIVERY_STATUS_LABELS: Record<DeliveryRow['status'], string> = {
  delivered: OUTCOMES.delivered.label,
  rejected: OUTCOMES.not_sent.label,
  not_sent: OUTCOMES.not_sent.label,
  failed: OUTCOMES.failed.label,
  held: OUTCOMES.held.label,
};
