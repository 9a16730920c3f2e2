import type { ReactElement } from 'react';
import AuthLayout from '@/layouts/AuthLayout';
import DefaultLayout from '@/layouts/DefaultLayout';
import EmptyLayout from '@/layouts/EmptyLayout';
import TopNavbarLayout from '@/layouts/TopNavbarLayout';
import type { GetLayout } from '@/layouts/types';

export type LayoutName = 'default' | 'auth' | 'topNavbar' | 'empty' | 'none';

export const layouts: Record<LayoutName, GetLayout> = {
  default: (page: ReactElement) => <DefaultLayout>{page}</DefaultLayout>,
  /** The sign-in pages: the form centred, no sidebar. */
  auth: (page: ReactElement) => <AuthLayout>{page}</AuthLayout>,
  topNavbar: (page: ReactElement) => <TopNavbarLayout>{page}</TopNavbarLayout>,
  empty: (page: ReactElement) => <EmptyLayout>{page}</EmptyLayout>,
  /** Error pages bring their own frame. */
  none: (page: ReactElement) => page,
};
