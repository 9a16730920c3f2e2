import type { ReactNode } from 'react';

/** Nothing but the page: for pages that only redirect. */
export default function EmptyLayout({ children }: { children: ReactNode }) {
  return (
    <main id="main" data-layout="empty" className="centered">
      {children}
    </main>
  );
}
