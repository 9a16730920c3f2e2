import Head from 'next/head';
import EmptyState from '@/components/ui/EmptyState';
import { layouts, type LayoutName } from '@/layouts/index';
import type { NextPageWithLayout } from '@/layouts/types';

/**
 * A route whose feature has not landed yet: its title and one honest line on what will be here,
 * never made-up records.
 */
export function plannedPage(title: string, description: string, layout: LayoutName = 'default'): NextPageWithLayout {
  function PlannedPage() {
    return (
      <>
        <Head>
          <title>{`${title} · SignalBridge`}</title>
        </Head>
        <EmptyState title={title} description={description} />
      </>
    );
  }
  PlannedPage.getLayout = layouts[layout];
  return PlannedPage;
}
