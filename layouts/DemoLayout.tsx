import type { ReactNode } from 'react';
import AppShell from '@/layouts/AppShell';

function DemoBanner() {
  return (
    <div className="demo-banner" role="note" aria-label="Demo data">
      <span className="demo-badge">Demo</span>
      You are looking at demo data: a seeded organization and a local sandbox of the ad platforms. Nothing here reaches a real account.
    </div>
  );
}

export default function DemoLayout({ children }: { children: ReactNode }) {
  return (
    <AppShell layout="demo" banner={<DemoBanner />}>
      {children}
    </AppShell>
  );
}
