/**
 * Alerts as the browser and the server both see them: the kinds, their words, where each object's page
 * is, and the defaults. Pure: no zod, no Firestore (pages load it).
 */

export const ALERT_KINDS = [
  'needs_reauth',
  'run_failed',
  'delivery_failures',
  'read_failed',
  'events_parked',
  'paused_by_plan',
  'counted_share_low',
  'counted_read_failed',
] as const;
export type AlertKindName = (typeof ALERT_KINDS)[number];

export const isAlertKind = (value: unknown): value is AlertKindName =>
  typeof value === 'string' && (ALERT_KINDS as readonly string[]).includes(value);

/** How each kind is named in the notification list, the emails and the person's settings. */
export const ALERT_KIND_LABELS: Record<AlertKindName, string> = {
  needs_reauth: 'A login needs reconnecting',
  run_failed: 'A run or backfill failed',
  delivery_failures: 'Events are not sent or failed',
  read_failed: 'A warehouse read failed',
  events_parked: 'Events are held or failed',
  paused_by_plan: 'Something was paused by a plan change',
  counted_share_low: 'The platform did not receive everything sent',
  counted_read_failed: "The platforms' counts could not be read",
};

/** The words of a resolved notice, per kind. */
export const ALERT_RESOLVED_LABELS: Record<AlertKindName, string> = {
  needs_reauth: 'Reconnected',
  run_failed: 'Runs succeed again',
  delivery_failures: 'Events are delivered again',
  read_failed: 'Warehouse reads work again',
  events_parked: 'No events are held or failed any more',
  paused_by_plan: 'Running again',
  counted_share_low: 'The platform receives what is sent again',
  counted_read_failed: "The platforms' counts are read again",
};

export const ALERT_SUBJECT_TYPES = ['connection', 'conversion', 'source', 'destination', 'app', 'organization'] as const;
export type AlertSubjectTypeName = (typeof ALERT_SUBJECT_TYPES)[number];

/** The conversion's alert threshold when none is set: 10 % not sent or failed of at least 20 events over the last hour. */
export const DEFAULT_FAILURE_THRESHOLD = { percent: 10, minEvents: 20 } as const;

export interface FailureThreshold {
  percent: number;
  minEvents: number;
}

/** One notice of the in-app list: an incident opened, or resolved. */
export interface AlertNotification {
  id: string;
  kind: AlertKindName;
  state: 'open' | 'resolved';
  title: string;
  message: string;
  subject: { type: AlertSubjectTypeName; id: string; name: string };
  /** The object's page, on this site. */
  link: string;
  createdAt: string;
  read: boolean;
}

/** The page of the object an alert is about (a source's page has its platform's segment). */
export function alertLinkOf(orgId: string, type: AlertSubjectTypeName, id: string, sourceSegment?: string | null): string {
  const org = `/${encodeURIComponent(orgId)}`;
  const object = encodeURIComponent(id);
  switch (type) {
    case 'connection':
      return `${org}/connection/${object}/configuration`;
    case 'conversion':
      return `${org}/conversion/${object}/configuration`;
    case 'destination':
      return `${org}/destination/${object}/configuration`;
    case 'source':
      return sourceSegment ? `${org}/source/${object}/${sourceSegment}/configuration` : `${org}/source`;
    case 'app':
      return `${org}/app/${object}`;
    default:
      return `${org}/settings`;
  }
}

/** Where the in-app list lives. */
export const notificationsPathOf = (orgId: string) => `/${encodeURIComponent(orgId)}/notifications`;
