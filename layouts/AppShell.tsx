import { useRouter } from 'next/router';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { UnreadBadge, useUnreadCount } from '@/layouts/shell/NotificationsLink';
import OrganizationNav from '@/layouts/shell/OrganizationNav';
import OrganizationSwitcher from '@/layouts/shell/OrganizationSwitcher';
import UserMenu from '@/layouts/shell/UserMenu';
import Brand from '@/layouts/Brand';
import { useAppSelector } from '@/store/hooks';
import { selectIsAuthenticated, selectOrgId } from '@/store/userSlice';

interface AppShellProps {
  layout: 'default' | 'demo';
  banner?: ReactNode;
  children: ReactNode;
}

/**
 * The sidebar frame shared by the default and demo layouts. On a narrow screen the sidebar is a bar
 * on top: the brand, the organization, and a Menu button that unfolds the navigation. The button carries the
 * unread alerts' count, which the folded Notifications link would otherwise hide.
 */
export default function AppShell({ layout, banner, children }: AppShellProps) {
  const router = useRouter();
  const isAuthenticated = useAppSelector(selectIsAuthenticated);
  const selectedOrgId = useAppSelector(selectOrgId);
  // The organization the navigation links to (OrganizationNav's): the one in the URL, or else the selected one.
  const orgId = typeof router.query.orgId === 'string' ? router.query.orgId : selectedOrgId;
  const unread = useUnreadCount(isAuthenticated ? orgId : null);
  const [menuOpen, setMenuOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const close = () => setMenuOpen(false);
    router.events.on('routeChangeStart', close);
    return () => router.events.off('routeChangeStart', close);
  }, [router.events]);

  // Escape folds the open menu and gives focus back to its button, as a disclosure does (WCAG 2.1.2).
  useEffect(() => {
    if (!menuOpen) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      setMenuOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [menuOpen]);

  return (
    <div data-layout={layout}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      {banner}
      <div className="shell" data-menu-open={menuOpen}>
        <aside className="shell__sidebar">
          <div className="shell__bar">
            <Brand href="/organizations" />
            {isAuthenticated && (
              <button
                ref={toggle}
                type="button"
                className="button button--secondary button--small shell__menu-toggle"
                aria-expanded={menuOpen}
                aria-controls="shell-menu"
                onClick={() => setMenuOpen((open) => !open)}
              >
                Menu
                <UnreadBadge count={unread} testId="menu-unread-count" />
              </button>
            )}
          </div>
          <OrganizationSwitcher />
          <div id="shell-menu" className="shell__menu">
            <OrganizationNav />
            <UserMenu />
          </div>
        </aside>
        <main id="main" className="shell__main">
          {children}
        </main>
      </div>
    </div>
  );
}
