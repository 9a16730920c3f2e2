import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useRef, useState } from 'react';
import { Title } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import { apiRequest, ApiRequestError } from '@/lib/client/apiClient';
import { configurationPathOf, PLATFORM_LABELS, type IntegrationKind } from '@/lib/shared/integrations/platforms';
import type { OAuthCancelled, OAuthCompleted } from '@/lib/shared/schemas/oauth';
import { layouts } from '@/layouts/index';
import type { NextPageWithLayout } from '@/layouts/types';
import { flowCleared, selectFlow } from '@/store/flowSlice';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { selectUser } from '@/store/userSlice';

/** What to tell someone who came back without a code: they cancelled (or the provider refused); nothing changed. */
export function cancelledMessage(error: string, cancelled: OAuthCancelled | null): string {
  const label = cancelled ? PLATFORM_LABELS[cancelled.platform] : null;
  if (error !== 'access_denied') return `${label ?? 'The platform'} did not grant access. Nothing was connected; try again.`;
  const what = cancelled?.reauthenticating ? `reconnecting ${label}` : label ? `connecting ${label}` : 'at the platform';
  const outcome = cancelled?.reauthenticating ? 'nothing changed' : 'nothing was connected';
  return `You cancelled ${what}. You did not allow access, so ${outcome}. You can try again whenever you are ready.`;
}

/** Spends the state of a flow that came back without a code; null when it was already spent or unknown. */
async function spendState(orgId: string, state: string, returnPath: string, error: string): Promise<OAuthCancelled | null> {
  try {
    return await apiRequest<OAuthCancelled>(`/api/orgs/${encodeURIComponent(orgId)}/oauth/cancel`, {
      method: 'POST',
      body: { state, returnPath, error: error.slice(0, 200) },
    });
  } catch {
    return null;
  }
}

/**
 * The fixed return routes (/addSource, /addConversionDestination, /bigquery, /googleReauth …): the
 * provider sends the browser back with `code` and `state`; the server finishes the exchange and the
 * user lands on the new (or reconnected) object's configuration page. Coming back with an error (Cancel on
 * the consent page) still spends the state on the server, so Allow pressed later on that page connects nothing.
 */
export function oauthReturnPage(title: string): NextPageWithLayout {
  function OAuthReturnPage() {
    const router = useRouter();
    const dispatch = useAppDispatch();
    const user = useAppSelector(selectUser);
    const flow = useAppSelector(selectFlow);
    const [error, setError] = useState<string | null>(null);
    const [cancelled, setCancelled] = useState<{ message: string; kind: IntegrationKind | null } | null>(null);
    const finished = useRef(false);
    const orgId = user.orgId;
    // TikTok names its code `auth_code` (it sends `code` too).
    const given = router.query.code ?? router.query.auth_code;
    const code = typeof given === 'string' ? given : null;
    const state = typeof router.query.state === 'string' ? router.query.state : null;
    const denied = typeof router.query.error === 'string' ? router.query.error : null;

    useEffect(() => {
      if (!router.isReady || finished.current) return;
      if (denied) {
        finished.current = true;
        dispatch(flowCleared());
        // Spent even though no code came back: a state must never work after a Cancel.
        const spent = orgId && state ? spendState(orgId, state, router.pathname, denied) : Promise.resolve(null);
        void spent.then((answer) => setCancelled({ message: cancelledMessage(denied, answer), kind: answer?.kind ?? null }));
        return;
      }
      if (!orgId || !code || !state) {
        finished.current = true;
        setError(
          'This page is where a platform sends you back after you allow access. Start connecting from your sources or destinations.',
        );
        return;
      }
      finished.current = true;
      apiRequest<OAuthCompleted>(`/api/orgs/${encodeURIComponent(orgId)}/oauth/complete`, {
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

    const kind = (cancelled?.kind ?? flow.storedFrom) === 'destination' ? 'destination' : 'source';
    const back = orgId ? `/${encodeURIComponent(orgId)}/${kind}` : '/organizations';
    const backLink = <Link href={back}>Back to your {kind === 'source' ? 'sources' : 'destinations'}</Link>;
    return (
      <main className="stack auth-card">
        <Title>{title}</Title>
        <h1>{title}</h1>
        {cancelled ? (
          <>
            <div role="alert" className="alert alert--info">
              {cancelled.message}
            </div>
            {backLink}
          </>
        ) : error ? (
          <>
            <Alert>{error}</Alert>
            {backLink}
          </>
        ) : (
          <Spinner label={denied ? 'Cancelling…' : 'Finishing the connection…'} />
        )}
      </main>
    );
  }
  OAuthReturnPage.getLayout = layouts.default;
  return OAuthReturnPage;
}
