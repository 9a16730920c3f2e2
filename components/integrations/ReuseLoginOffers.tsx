import { useRouter } from 'next/router';
import { messageOf } from '@/components/integrations/shared';
import { useConnect } from '@/components/integrations/useConnect';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import { configurationPathOf, PLATFORM_LABELS, type Integration, type OAuthPlatform } from '@/lib/shared/integrations/platforms';
import { offeredLogins } from '@/lib/shared/integrations/reuse';
import type { ApiFailure } from '@/store/api';
import { useIntegrationsQuery, useReuseSourceLoginMutation } from '@/store/integrationsApi';

/**
 * Wherever a conversion destination is asked for (the destinations page, the New conversion wizard): a
 * login already connected as a working source of a platform whose catalogue record says `reusableLogin`
 * is offered as "Use your {platform} login ({account})", with no second consent. The destination refers
 * to the source's login (one reconnect mends both) and starts with the accounts picked on the source.
 * A login that already has its destination is not offered again. Beside it, "Connect another account"
 * still goes through the consent. A destination needing a scope the source's consent lacked
 * (`missing_scope`) is sent to the consent instead.
 *
 * Without `onCreated`, the new destination's page is opened; with it (the wizard), the caller carries on in place.
 */
export default function ReuseLoginOffers({
  orgId,
  onCreated,
  title = 'Send conversions with a login you already connected',
}: {
  orgId: string;
  onCreated?: (destination: Integration) => void;
  title?: string;
}) {
  const router = useRouter();
  const connect = useConnect(orgId);
  const { data: sources = [] } = useIntegrationsQuery({ orgId, kind: 'source' });
  const { data: destinations } = useIntegrationsQuery({ orgId, kind: 'destination' });
  const [reuse, { isLoading, error }] = useReuseSourceLoginMutation();
  // Until the destinations are known, a login that already has its destination could be offered twice.
  const offers = destinations ? offeredLogins(sources, destinations) : [];
  if (offers.length === 0) return null;

  async function use(fromId: string, platform: OAuthPlatform) {
    const result = await reuse({ orgId, fromId });
    if ('data' in result && result.data) {
      const { destination } = result.data;
      if (onCreated) onCreated(destination);
      else void router.push(`${configurationPathOf(orgId, 'destination', destination.id, destination.platform)}?connected=1`);
    } else if ((result.error as Partial<ApiFailure> | undefined)?.code === 'missing_scope') {
      connect(platform, 'destination');
    }
  }

  return (
    <section className="stack" aria-labelledby="reuse-title" data-testid="reuse-login">
      <h3 id="reuse-title">{title}</h3>
      {error && (error as Partial<ApiFailure>).code !== 'missing_scope' && <Alert>{messageOf(error, 'Could not use this login.')}</Alert>}
      <ul className="stack" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {offers.map((source) => (
          <li key={source.id} className="actions" style={{ justifyContent: 'flex-start' }}>
            <Button type="button" disabled={isLoading} onClick={() => void use(source.id, source.platform as OAuthPlatform)}>
              Use your {PLATFORM_LABELS[source.platform]} login ({source.accountName})
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
