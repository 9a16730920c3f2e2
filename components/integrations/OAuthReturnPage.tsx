import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useRef, useState } from 'react';
import { Title } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import { apiRequest, ApiRequestError } from '@/lib/apiClient';
import { configurationPathOf, type IntegrationKind, type Platform } from '@/lib/integrations/platforms';
import { layouts } from '@/layouts/index';
import type { NextPageWithLayout } from '@/layouts/types';
import { flowCleared, selectFlow } from '@/store/flowSlice';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { selectUser } from '@/store/userSlice';

interface Completed {
  kind: IntegrationKind;
  id: string;
  platform: Platform;
  reauthenticated: boolean;
}

/**
 * The fixed return routes (/addSource, /addConversionDestination, /bigquery, /googleReauth …): the
 * provider sends the browser back with `code` and `state`; the server finishes the exchange and the
 * user lands on the new (or reconnected) object's configuration page.
 */
export function oauthReturnPage(title: string): NextPageWithLayout {
  function OAuthReturnPage() {
    const router = useRouter();
    const dispatch = useAppDispatch();
    const user = useAppSelector(selectUser);
    const flow = useAppSelector(selectFlow);
    const [error, setError] = useState<string | null>(null);
    const finished = useRef(false);
    const orgId = user.orgId;
    const code = typeof router.query.code === 'string' ? router.query.code : null;
    const state = typeof router.query.state === 'string' ? router.query.state : null;
    const denied = typeof router.query.error === 'string' ? router.query.error : null;

    useEffect(() => {
      if (!router.isReady || finished.current) return;
      if (denied) {
        finished.current = true;
        dispatch(flowCleared());
        setError(
          denied === 'access_denied'
            ? 'You did not allow access, so nothing was connected. You can try again whenever you are ready.'
            : 'The platform did not grant access. Nothing was connected; try again.',
        );
        return;
      }
      if (!orgId || !code || !state) {
        finished.current = true;
        setError('This page is where a platform sends you back after you allow access. Start connecting from your sources or destinations.');
        return;
      }
      finished.current = true;
      apiRequest<Completed>(`/api/orgs/${encodeURIComponent(orgId)}/oauth/complete`, {
        method: 'POST',
        body: { state, code, returnPath: router.pathname },
      })
        .then((done) => {
          dispatch(flowCleared());
          const path = configurationPathOf(orgId, done.kind, done.id, done.platform);
          return router.replace(`${path}?${done.reauthenticated ? 'reconnected' : 'connected'}=1`);
        })
        .catch((failure: unknown) => setError(failure instanceof ApiRequestError ? failure.message : 'An unexpected error occurred'));
    }, [router, dispatch, orgId, code, state, denied]);

    const kind = flow.storedFrom === 'destination' ? 'destination' : 'source';
    const back = orgId ? `/${encodeURIComponent(orgId)}/${kind}` : '/organizations';
    return (
      <main className="stack auth-card">
        <Title>{title}</Title>
        <h1>{title}</h1>
        {error ? (
          <>
            <Alert>{error}</Alert>
            <Link href={back}>Back to your {kind === 'source' ? 'sources' : 'destinations'}</Link>
          </>
        ) : (
          <Spinner label="Finishing the connection…" />
        )}
      </main>
    );
  }
  OAuthReturnPage.getLayout = layouts.default;
  return OAuthReturnPage;
}
