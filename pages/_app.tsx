import '@/components/ui/globals.css';
import type { AppProps } from 'next/app';
import dynamic from 'next/dynamic';
import Head from 'next/head';
import { useRouter } from 'next/router';
import { useState } from 'react';
import { Provider } from 'react-redux';
import { persistStore } from 'redux-persist';
import { PersistGate } from 'redux-persist/integration/react';
import AppUpdates from '@/components/AppUpdates';
import AuthListener from '@/components/auth/AuthListener';
import RouteGuard from '@/components/auth/RouteGuard';
import ErrorBoundary from '@/components/ErrorBoundary';
import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { reportEvent } from '@/lib/client/analytics';
import { publicConfig } from '@/lib/shared/config';
import { layouts } from '@/layouts/index';
import type { NextPageWithLayout } from '@/layouts/types';
import { makeStore } from '@/store/index';

type AppPropsWithLayout = AppProps & { Component: NextPageWithLayout };

// The chat loads only where an Intercom workspace is configured, and then in its own chunk.
const SupportChat = publicConfig.intercomAppId ? dynamic(() => import('@/components/support/SupportChat'), { ssr: false }) : null;

export default function App({ Component, pageProps }: AppPropsWithLayout) {
  const router = useRouter();
  const [{ store, persistor }] = useState(() => {
    const created = makeStore();
    return { store: created, persistor: persistStore(created) };
  });
  const getLayout = Component.getLayout ?? layouts.default;

  return (
    <Provider store={store}>
      <Head>
        <title>SignalBridge</title>
        <meta name="viewport" content="width=device-width, initial-scale=1" />
      </Head>
      {/* A function child renders on the server too, before the stored state is read. */}
      <PersistGate persistor={persistor}>
        {(rehydrated) => (
          <>
            {rehydrated && <AuthListener />}
            {rehydrated && SupportChat && <SupportChat />}
            <AppUpdates />
            <ErrorBoundary
              resetKey={router.asPath}
              onError={(error) => {
                const { uid } = store.getState().user;
                if (uid) reportEvent(uid, ANALYTICS_EVENTS.errorReceived, { message: error.message.slice(0, 500), path: router.asPath });
              }}
            >
              <RouteGuard>{getLayout(<Component {...pageProps} />)}</RouteGuard>
            </ErrorBoundary>
          </>
        )}
      </PersistGate>
    </Provider>
  );
}
