import Link from 'next/link';
import { useNotificationsQuery } from '@/store/alertsApi';

/**
 * How many alert notices the person has not read in the organization, refreshed every minute: the link and
 * the folded menu's button read the same query (one request, however many ask).
 */
export function useUnreadCount(orgId: string | null): number {
  const { data } = useNotificationsQuery(orgId ?? '', { skip: !orgId, pollingInterval: 60_000, skipPollingIfUnfocused: true });
  return data?.unread ?? 0;
}

/** The red count; "50+" beyond. */
export function UnreadBadge({ count, testId }: { count: number; testId: string }) {
  if (count <= 0) return null;
  return (
    <span className="badge badge--alert" data-testid={testId} aria-label={`${count} unread`}>
      {count >= 50 ? '50+' : count}
    </span>
  );
}

/** The shell's link to the alert notices, with how many the person has not read. */
export default function NotificationsLink({ orgId, current }: { orgId: string; current: boolean }) {
  const unread = useUnreadCount(orgId);
  return (
    <Link
      href={`/${encodeURIComponent(orgId)}/notifications`}
      aria-current={current ? 'page' : undefined}
      className="nav__notifications"
      data-testid="nav-notifications"
    >
      Notifications
      <UnreadBadge count={unread} testId="unread-count" />
    </Link>
  );
}
