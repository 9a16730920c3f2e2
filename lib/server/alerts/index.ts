/**
 * Alerts: someone hears when data stops flowing, and once more when it flows again.
 *
 * Callers in the data plane say what happened to which object; this module decides who is told, how
 * (email, in-app, Slack) and how often (one incident per object and kind until it resolves). Neither
 * function throws: an alert that cannot be recorded is logged, and the pipeline goes on.
 */
import { ALERT_KIND_LABELS, ALERT_RESOLVED_LABELS, alertLinkOf } from '@/lib/shared/alerts';
import { CATALOGUE } from '@/lib/shared/integrations/platforms';
import { dispatch } from '@/lib/server/alerts/notify';
import { closeIncident, closeIncidentsOf, openIncident } from '@/lib/server/repos/alerts';
import { errorFields, labels, log } from '@/lib/server/log';

export type AlertKind =
  /** A source or destination login was refused: it needs reconnecting. */
  | 'needs_reauth'
  /** A scheduled run or a backfill failed, or some of its accounts failed. */
  | 'run_failed'
  /** A conversion's rejected + not sent + failed share over the last hour crossed its threshold. */
  | 'delivery_failures'
  /** A warehouse read (BigQuery, Mixpanel) of a conversion failed. */
  | 'read_failed'
  /** Events were parked: held for a reconnect or failed after retries. */
  | 'events_parked'
  /** The plan no longer includes something, which is paused until an upgrade or an edit. */
  | 'paused_by_plan'
  /** The share of accepted conversions the platform attributes (last 7 final days) fell under the user's threshold. */
  | 'counted_share_low'
  /** The reading job of "Counted by the platform" failed for an organization (a round that threw). */
  | 'counted_read_failed';

export type AlertSubjectType = 'connection' | 'conversion' | 'source' | 'destination' | 'app' | 'organization';

export interface AlertSubject {
  type: AlertSubjectType;
  id: string;
  /** Its name as the user gave it, for the email and the notification list. */
  name?: string;
  /** The uid of whoever created it: told as well as the owners and admins. */
  createdBy?: string;
}

export interface AlertInput {
  orgId: string;
  kind: AlertKind;
  subject: AlertSubject;
  /** One sentence a marketer reads: what stopped and what to do. */
  message: string;
  /** Optional: the page the notice links to, when not the object's own configuration page. */
  link?: string;
}

const sourceSegmentOf = (platform: string | null) =>
  platform && platform in CATALOGUE
    ? ((CATALOGUE as Record<string, { ad?: { sourceSegment: string } }>)[platform]?.ad?.sourceSegment ?? null)
    : null;

/** Opens an incident for this subject and kind (or leaves the open one as it is) and notifies once per incident. */
export async function raiseAlert(input: AlertInput): Promise<void> {
  const { orgId, kind, subject } = input;
  try {
    const notice = await openIncident(orgId, { kind, type: subject.type, id: subject.id }, (facts) => {
      const name = subject.name ?? facts.name ?? subject.id;
      return {
        kind,
        state: 'open',
        title: `${ALERT_KIND_LABELS[kind]}: ${name}`,
        message: input.message,
        subject: { type: subject.type, id: subject.id, name },
        link: input.link ?? alertLinkOf(orgId, subject.type, subject.id, sourceSegmentOf(facts.platform)),
        createdBy: subject.createdBy ?? facts.createdBy,
      };
    });
    if (notice) await dispatch(orgId, notice);
  } catch (error) {
    log.error({ component: 'alerts', ...labels({ org: orgId }), kind, subject: subject.id, ...errorFields(error) }, 'alert not raised');
  }
}

/** Closes the open incident of this subject and kind, if any, with one "resolved" notice. */
export async function resolveAlert(input: Omit<AlertInput, 'message'> & { message?: string }): Promise<void> {
  const { orgId, kind, subject } = input;
  try {
    const notice = await closeIncident(orgId, { kind, type: subject.type, id: subject.id }, (incident) => ({
      kind,
      state: 'resolved',
      title: `${ALERT_RESOLVED_LABELS[kind]}: ${subject.name ?? incident.name}`,
      message: input.message ?? 'It works again. Nothing more to do.',
      subject: { type: subject.type, id: subject.id, name: subject.name ?? incident.name },
      link: incident.link,
      createdBy: incident.createdBy,
    }));
    if (notice) await dispatch(orgId, notice);
  } catch (error) {
    log.error({ component: 'alerts', ...labels({ org: orgId }), kind, subject: subject.id, ...errorFields(error) }, 'alert not resolved');
  }
}

/** The object was deleted: its open incidents close quietly (no "resolved" notice). Never throws. */
export async function forgetAlerts(orgId: string, subject: Pick<AlertSubject, 'type' | 'id'>): Promise<void> {
  try {
    await closeIncidentsOf(orgId, subject.type, subject.id, Object.keys(ALERT_KIND_LABELS) as AlertKind[]);
  } catch (error) {
    log.error(
      { component: 'alerts', ...labels({ org: orgId }), subject: subject.id, ...errorFields(error) },
      'incidents of a deleted object not closed',
    );
  }
}
