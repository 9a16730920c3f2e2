import Head from 'next/head';
import Link from 'next/link';
import EmailPreferencesForm from '@/components/alerts/EmailPreferencesForm';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { relativeTime, useNow } from '@/components/ui/time';
import type { AlertNotification } from '@/lib/shared/alerts';
import { can } from '@/lib/shared/permissions';
import { useMarkNotificationsReadMutation, useNotificationsQuery } from '@/store/alertsApi';

function NoticeItem({ orgId, notice, now }: { orgId: string; notice: AlertNotification; now: number }) {
  const [markRead, { isLoading }] = useMarkNotificationsReadMutation();
  const read = () => (notice.read ? undefined : void markRead({ orgId, ids: [notice.id] }));
  return (
    <li className={`notice notice--${notice.state}${notice.read ? '' : ' notice--unread'}`} data-testid="notification">
      <div className="notice__head">
        <span className={`badge ${notice.state === 'resolved' ? 'badge--accepted' : 'badge--pending'}`}>
          {notice.state === 'resolved' ? 'Resolved' : 'Alert'}
        </span>
        <Link href={notice.link} onClick={read} className="notice__title">
          {notice.title}
        </Link>
        {!notice.read && <span className="sr-only">(unread)</span>}
      </div>
      <p className="notice__message">{notice.message}</p>
      <div className="notice__meta muted">
        <time dateTime={notice.createdAt} title={new Date(notice.createdAt).toLocaleString()}>
          {relativeTime(notice.createdAt, now)}
        </time>
        {!notice.read && (
          <Button type="button" variant="secondary" className="button--small" busy={isLoading} onClick={read}>
            Mark as read
          </Button>
        )}
      </div>
    </li>
  );
}

/** `/{orgId}/notifications`: what stopped and what recovered, newest first, each linking to its object; and the person's email settings. */
export default function NotificationsPage() {
  const { orgId, role } = useOrganizationContext();
  const now = useNow();
  const { data, isLoading, error, refetch } = useNotificationsQuery(orgId ?? '', { skip: !orgId });
  const [markRead, marking] = useMarkNotificationsReadMutation();
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Head>
        <title>Notifications · SignalBridge</title>
      </Head>
      <div className="page-header">
        <h1>Notifications</h1>
        {orgId && data && data.unread > 0 && (
          <Button type="button" variant="secondary" busy={marking.isLoading} onClick={() => void markRead({ orgId, all: true })}>
            Mark all as read
          </Button>
        )}
      </div>
      <section className="section card" aria-labelledby="notices-title">
        <h2 id="notices-title">Alerts</h2>
        {!orgId || isLoading ? (
          <Spinner label="Loading notifications" />
        ) : error ? (
          <Alert>
            {messageOf(error, 'The notifications could not be loaded.')}{' '}
            <button type="button" className="link-button" onClick={() => void refetch()}>
              Try again
            </button>
          </Alert>
        ) : !data || data.notifications.length === 0 ? (
          <div className="empty-state" data-testid="empty-state">
            <p>
              Nothing has stopped. When a login needs reconnecting, a run fails, a warehouse read fails or a conversion&apos;s events are
              not sent or failed, it appears here, and again once it works.
            </p>
          </div>
        ) : (
          <>
            {marking.error && <Alert>{messageOf(marking.error, 'Could not mark them as read.')}</Alert>}
            <ul className="notices" aria-label="Notifications">
              {data.notifications.map((notice) => (
                <NoticeItem key={notice.id} orgId={orgId} notice={notice} now={now} />
              ))}
            </ul>
          </>
        )}
      </section>
      {orgId && <EmailPreferencesForm orgId={orgId} />}
      {orgId && role && can(role, 'organization', 'update') && (
        <p className="muted">
          Alerts can also go to a Slack channel:{' '}
          <Link href={`/${encodeURIComponent(orgId)}/settings#alerts-slack`}>set a webhook in Settings</Link>.
        </p>
      )}
    </div>
  );
}
