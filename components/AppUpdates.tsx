import { useEffect, useState } from 'react';
import { BUILD_ID_POLL_MS, isChunkLoadError, MANIFEST_PREFETCH_DELAY_MS, reloadOnce } from '@/lib/client/appUpdates';

function currentBuildId(): string | undefined {
  return (window as unknown as { __NEXT_DATA__?: { buildId?: string } }).__NEXT_DATA__?.buildId;
}

/**
 * Notices a new deployment and offers a reload, without interrupting; reloads by itself (once per
 * 10 seconds at most) when a chunk of the old build fails to load.
 */
export default function AppUpdates() {
  const [available, setAvailable] = useState(false);

  useEffect(() => {
    const buildId = currentBuildId();
    if (!buildId) return;

    // Warm the cache with this build's manifest, so later navigations need nothing from the server.
    const prefetch = window.setTimeout(() => {
      void fetch(`/_next/static/${buildId}/_buildManifest.js`).catch(() => undefined);
    }, MANIFEST_PREFETCH_DELAY_MS);

    async function check() {
      try {
        const response = await fetch('/api/build-id', { cache: 'no-store' });
        const { buildId: latest } = (await response.json()) as { buildId?: string };
        if (latest && latest !== buildId) setAvailable(true);
      } catch {
        // offline or mid-deployment: ask again later
      }
    }
    const poll = window.setInterval(check, BUILD_ID_POLL_MS);
    const onVisible = () => {
      if (document.visibilityState === 'visible') void check();
    };
    window.addEventListener('focus', check);
    document.addEventListener('visibilitychange', onVisible);

    function onChunkFailure(reason: unknown) {
      if (!isChunkLoadError(reason)) return;
      if (!reloadOnce(window.sessionStorage, Date.now(), () => window.location.reload())) setAvailable(true);
    }
    const onError = (event: ErrorEvent) => onChunkFailure(event.error ?? { message: event.message });
    const onRejection = (event: PromiseRejectionEvent) => onChunkFailure(event.reason);
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);

    return () => {
      window.clearTimeout(prefetch);
      window.clearInterval(poll);
      window.removeEventListener('focus', check);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
    };
  }, []);

  if (!available) return null;
  return (
    <div className="update-banner" role="region" aria-label="Update available">
      A new version is available —{' '}
      <button type="button" className="link-button" onClick={() => window.location.reload()}>
        reload
      </button>
    </div>
  );
}
