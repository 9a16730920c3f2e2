import { useRouter } from 'next/router';
import { messageOf } from '@/components/integrations/shared';
import { useConnect } from '@/components/integrations/useConnect';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import { configurationPathOf, PLATFORM_LABELS, type OAuthPlatform } from '@/lib/shared/integrations/platforms';
import { reusableSources } from '@/lib/shared/integrations/reuse';
import type { ApiFailure } from '@/store/api';
import { useIntegrationsQuery, useReuseSourceLoginMutation } from '@/store/integrationsApi';

/**
 * On the destinations page: a Google Ads or Meta login already connected as a working source can
 * receive conversions too, without a second consent. Beside it, "Connect another account" still
 * goes through the consent. A destination needing a scope the source's consent lacked
 * (`missing_scope`) is sent to the consent instead.
 */
export default function ReuseLoginOffers({ orgId }: { orgId: string }) {
  const router = useRouter();
  const connect = useConnect(orgId);
  const { data: sources = [] } = useIntegrationsQuery({ orgId, kind: 'source' });
  const [reuse, { isLoading, error }] = useReuseSourceLoginMutation();
  const offers = reusableSources(sources);
  if (offers.length === 0) return null;

  async function use(fromId: string, platform: OAuthPlatform) {
    const result = await reuse({ orgId, fromId });
    if ('data' in result && result.data) {
      const { destination } = result.data;
      void router.push(`${configurationPathOf(orgId, 'destination', destination.id, destination.platform)}?connected=1`);
    } else if ((result.error as Partial<ApiFailure> | undefined)?.code === 'missing_scope') {
      connect(platform, 'destination');
    }
  }

  return (
    <section className="stack" aria-labelledby="reuse-title">
      <h3 id="reuse-title">Send conversions with a login you already connected</h3>
      {error && (error as Partial<ApiFailure>).code !== 'missing_scope' && <Alert>{messageOf(error, 'Could not use this login.')}</Alert>}
      <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {offers.map((source) => (
          <li key={source.id} className="actions" style={{ justifyContent: 'flex-start' }}>
            <Button type="button" disabled={isLoading} onClick={() => void use(source.id, source.platform as OAuthPlatform)}>
              Use the login of {source.name}
            </Button>
            <Button type="button" variant="secondary" onClick={() => connect(source.platform as OAuthPlatform, 'destination')}>
              Connect another {PLATFORM_LABELS[source.platform]} account
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
