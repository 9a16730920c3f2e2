import { useRouter } from 'next/router';
import type { ReactNode } from 'react';
import { isDemoOrganization } from '@/lib/shared/config';
import AppShell from '@/layouts/AppShell';
import DemoLayout from '@/layouts/DemoLayout';

/** Sidebar layout; the demo organization's pages wear the demo frame instead. */
export default function DefaultLayout({ children }: { children: ReactNode }) {
  const { query } = useRouter();
  if (isDemoOrganization(typeof query.orgId === 'string' ? query.orgId : undefined)) {
    return <DemoLayout>{children}</DemoLayout>;
  }
  return <AppShell layout="default">{children}</AppShell>;
}
