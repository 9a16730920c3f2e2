import type { ReactNode } from 'react';
import UserMenu from '@/layouts/shell/UserMenu';
import Brand from '@/layouts/Brand';

export default function TopNavbarLayout({ children }: { children: ReactNode }) {
  return (
    <div data-layout="top-navbar">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Brand href="/organizations" />
        <UserMenu />
      </header>
      <main id="main" className="topbar__main">
        {children}
      </main>
    </div>
  );
}
