import { useRouter } from 'next/router';
import { useCallback } from 'react';
import { START_ROUTE_OF, type IntegrationKind, type OAuthPlatform } from '@/lib/shared/integrations/platforms';
import { flowStarted } from '@/store/flowSlice';
import { useAppDispatch } from '@/store/hooks';

/**
 * Starts a platform's consent: remembers the flow keys (what it creates, which platform, which
 * object it reconnects) and opens the start route, which sends the browser to the provider.
 */
export function useConnect(orgId: string | null) {
  const router = useRouter();
  const dispatch = useAppDispatch();
  return useCallback(
    (platform: OAuthPlatform, kind: IntegrationKind, objectId: string | null = null) => {
      if (!orgId) return;
      dispatch(flowStarted({ storedFrom: kind, storedType: platform, sourceKey: objectId }));
      void router.push(`/${encodeURIComponent(orgId)}/${START_ROUTE_OF[platform]}`);
    },
    [dispatch, orgId, router],
  );
}
