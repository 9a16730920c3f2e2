import type { NextPage } from 'next';
import type { ReactElement, ReactNode } from 'react';

export type GetLayout = (page: ReactElement) => ReactNode;

/** A page may name its layout (the Page.getLayout pattern); without one it gets the default. */
export type NextPageWithLayout<P = object> = NextPage<P> & { getLayout?: GetLayout };
