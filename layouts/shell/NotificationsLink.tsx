import Link from 'next/link';
import { useNotificationsQuery } from '@/store/alertsApi';

/** The shell's link to the alert notices, with how many the person has not read (refreshed every minute). */
export default function NotificationsLink({ orgId, current }: { orgId: string; current: boolean }) {
  const { data } = useNotificationsQuery(orgId, { pollingInterval: 60_000, skipPollingIfUnfocused: true });
  const unread = data?.unread ?? 0;
  return (
    <Link
      href={`/${encodeURIComponent(orgId)}/notifications`}
      aria-current={current ? 'page' : undefined}
      className="nav__notifications"
      data-testid="nav-notifications"
    >
      Notifications
      {unread > 0 && (
        <span className="badge badge--alert" data-testid="unread-count" aria-label={`${unread} unread`}>
          {unread >= 50 ? '50+' : unread}
        </span>
      )}
    </Link>
  );
}
