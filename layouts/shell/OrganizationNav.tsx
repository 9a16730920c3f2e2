import Link from 'next/link';
import { useRouter } from 'next/router';
import NotificationsLink from '@/layouts/shell/NotificationsLink';
import { useAppSelector } from '@/store/hooks';
import { selectIsAuthenticated, selectOrgId } from '@/store/userSlice';

const SECTIONS = [
  {
    heading: 'Ad data',
    links: [
      ['connection', 'Connections'],
      ['source', 'Sources'],
      ['destination', 'Destinations'],
    ],
  },
  {
    heading: 'Conversions',
    links: [
      ['conversion', 'Conversions'],
      ['reconciliation', 'Reconciliation'],
      ['app', 'Apps'],
      ['payment', 'Payments'],
    ],
  },
  {
    heading: 'Organization',
    links: [
      ['notifications', 'Notifications'],
      ['settings', 'Settings'],
      ['subscription', 'Subscription'],
    ],
  },
] as const;

/** Links of the organization in the URL, or else of the selected one. */
export default function OrganizationNav() {
  const router = useRouter();
  const selectedOrgId = useAppSelector(selectOrgId);
  const isAuthenticated = useAppSelector(selectIsAuthenticated);
  const orgId = typeof router.query.orgId === 'string' ? router.query.orgId : selectedOrgId;
  if (!orgId) {
    if (!isAuthenticated) return null;
    return (
      <nav className="nav" aria-label="Main">
        <Link href="/organizations">Organizations</Link>
      </nav>
    );
  }
  const base = `/${encodeURIComponent(orgId)}`;
  return (
    <nav className="nav" aria-label="Main">
      {SECTIONS.map(({ heading, links }) => (
        <div key={heading}>
          <div className="nav__heading">{heading}</div>
          {links.map(([segment, label]) => {
            const href = `${base}/${segment}`;
            const current = router.asPath === href || router.asPath.startsWith(`${href}/`);
            // The unread count asks the server: only once signed in (a sign-out sends no request without a token).
            if (segment === 'notifications' && isAuthenticated) return <NotificationsLink key={segment} orgId={orgId} current={current} />;
            return (
              <Link key={segment} href={href} aria-current={current ? 'page' : undefined}>
                {label}
              </Link>
            );
          })}
        </div>
      ))}
    </nav>
  );
}
