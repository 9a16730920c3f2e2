import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useRef, useState } from 'react';
import { Title, messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { apiRequest, ApiRequestError } from '@/lib/client/apiClient';
import {
  INTEGRATION_KINDS,
  OAUTH_PLATFORMS,
  PLATFORM_LABELS,
  PROVIDER_OF,
  startLayoutOf,
  type IntegrationKind,
  type OAuthPlatform,
} from '@/lib/shared/integrations/platforms';
import { layouts } from '@/layouts/index';
import type { GetLayout } from '@/layouts/types';
import { selectFlow } from '@/store/flowSlice';
import { useAppSelector } from '@/store/hooks';

const isPlatform = (value: unknown): value is OAuthPlatform => (OAUTH_PLATFORMS as readonly unknown[]).includes(value);
const isKind = (value: unknown): value is IntegrationKind => (INTEGRATION_KINDS as readonly unknown[]).includes(value);

/**
 * /{orgId}/GoogleAds, /MetaAds, /MicrosoftAds: asks the server for the provider's consent URL (with
 * a signed, single-use state) for the remembered flow, then leaves for it. Opened directly, it
 * connects `defaultPlatform` (the start route's first platform) after asking.
 */
export interface OAuthStartProps {
  defaultPlatform: OAuthPlatform;
}

function OAuthStartPage({ defaultPlatform }: OAuthStartProps) {
  const router = useRouter();
  const flow = useAppSelector(selectFlow);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  const orgId = typeof router.query.orgId === 'string' ? router.query.orgId : null;
  // The remembered flow decides what is connected; opened directly, the page asks first.
  const remembered = isPlatform(flow.storedType) && PROVIDER_OF[flow.storedType] === PROVIDER_OF[defaultPlatform];
  const platform = remembered ? (flow.storedType as OAuthPlatform) : defaultPlatform;
  const kind = isKind(flow.storedFrom) ? flow.storedFrom : 'source';
  const [confirmed, setConfirmed] = useState(false);

  useEffect(() => {
    if (!router.isReady || !orgId || started.current || !(remembered || confirmed)) return;
    started.current = true;
    apiRequest<{ url: string }>(`/api/orgs/${encodeURIComponent(orgId)}/oauth/start`, {
      method: 'POST',
      body: { platform, kind, ...(flow.sourceKey ? { objectId: flow.sourceKey } : {}) },
    })
      .then(({ url }) => window.location.assign(url))
      .catch((failure: unknown) =>
        setError(
          failure instanceof ApiRequestError
            ? messageOf({ status: failure.status, message: failure.message })
            : 'An unexpected error occurred',
        ),
      );
  }, [router.isReady, orgId, platform, kind, flow.sourceKey, remembered, confirmed]);

  const back = orgId ? `/${encodeURIComponent(orgId)}/${kind}` : '/organizations';
  return (
    <main className="stack auth-card">
      <Title>{`Connecting ${PLATFORM_LABELS[platform]}`}</Title>
      <h1>Connecting {PLATFORM_LABELS[platform]}</h1>
      {error ? (
        <>
          <Alert>{error}</Alert>
          <Link href={back}>Back to your {kind === 'source' ? 'sources' : 'destinations'}</Link>
        </>
      ) : remembered || confirmed ? (
        <Spinner label={`Taking you to ${PLATFORM_LABELS[platform]} to allow access…`} />
      ) : (
        <>
          <p>You will sign in to {PLATFORM_LABELS[platform]} and allow SignalBridge to read your ad accounts.</p>
          <div>
            <Button type="button" onClick={() => setConfirmed(true)}>
              Continue to {PLATFORM_LABELS[platform]}
            </Button>
          </div>
        </>
      )}
    </main>
  );
}
// Each platform's start page has its own layout (CATALOGUE's startLayout).
OAuthStartPage.getLayout = ((page) => layouts[startLayoutOf((page.props as OAuthStartProps).defaultPlatform)](page)) satisfies GetLayout;
export default OAuthStartPage;

/** The start page of one platform's consent (/{orgId}/GoogleAds, /MetaAds, /MicrosoftAds: one page file per route). */
export function oauthStartPage(defaultPlatform: OAuthPlatform) {
  const StartPage = () => <OAuthStartPage defaultPlatform={defaultPlatform} />;
  StartPage.getLayout = layouts[startLayoutOf(defaultPlatform)] satisfies GetLayout;
  return StartPage;
}
