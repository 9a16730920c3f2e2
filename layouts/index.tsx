import type { ReactElement } from 'react';
import DefaultLayout from '@/layouts/DefaultLayout';
import EmptyLayout from '@/layouts/EmptyLayout';
import TopNavbarLayout from '@/layouts/TopNavbarLayout';
import type { GetLayout } from '@/layouts/types';

export type LayoutName = 'default' | 'topNavbar' | 'empty' | 'none';

export const layouts: Record<LayoutName, GetLayout> = {
  default: (page: ReactElement) => <DefaultLayout>{page}</DefaultLayout>,
  topNavbar: (page: ReactElement) => <TopNavbarLayout>{page}</TopNavbarLayout>,
  empty: (page: ReactElement) => <EmptyLayout>{page}</EmptyLayout>,
  /** Error pages bring their own frame. */
  none: (page: ReactElement) => page,
};
