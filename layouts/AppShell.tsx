import type { ReactNode } from 'react';
import OrganizationNav from '@/components/layout/OrganizationNav';
import UserMenu from '@/components/layout/UserMenu';
import Brand from '@/layouts/Brand';

interface AppShellProps {
  layout: 'default' | 'demo';
  banner?: ReactNode;
  children: ReactNode;
}

/** The sidebar frame shared by the default and demo layouts. */
export default function AppShell({ layout, banner, children }: AppShellProps) {
  return (
    <div data-layout={layout}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      {banner}
      <div className="shell">
        <aside className="shell__sidebar">
          <Brand href="/organizations" />
          <OrganizationNav />
          <UserMenu />
        </aside>
        <main id="main" className="shell__main">
          {children}
        </main>
      </div>
    </div>
  );
}
