import { useRouter } from 'next/router';
import { BigQueryKeyForm, MixpanelForm } from '@/components/integrations/CredentialForms';
import IntegrationDeleteButton from '@/components/integrations/IntegrationDeleteButton';
import { ReconnectButton } from '@/components/integrations/ReconnectNotice';
import ReuseLoginOffers from '@/components/integrations/ReuseLoginOffers';
import { formatDate, messageOf, StatusBadge, Title } from '@/components/integrations/shared';
import { useConnect } from '@/components/integrations/useConnect';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { ConfigureButton, NameCell } from '@/components/ui/ListRow';
import {
  configurationPathOf,
  isOAuthPlatform,
  PLATFORM_LABELS,
  PLATFORMS_OF_KIND,
  type Integration,
  type IntegrationKind,
} from '@/lib/shared/integrations/platforms';
import { publicConfig } from '@/lib/shared/config';
import { can } from '@/lib/shared/permissions';
import { useIntegrationsQuery } from '@/store/integrationsApi';

const COPY: Record<IntegrationKind, { title: string; lead: string; empty: string }> = {
  source: {
    title: 'Sources',
    lead: 'The ad accounts your spend, clicks and impressions come from.',
    empty: 'No sources yet. Connect an ad account to start moving its data.',
  },
  destination: {
    title: 'Destinations',
    lead: 'Where ad data lands (BigQuery, Mixpanel) and the ad accounts that receive your conversions.',
    empty: 'No destinations yet. Connect a warehouse, Mixpanel or an ad account.',
  },
};

/** `/{orgId}/source` and `/{orgId}/destination`: the objects of one kind, and how to connect more. */
export function integrationsPage(kind: IntegrationKind) {
  function IntegrationsPage() {
    const router = useRouter();
    const { orgId, role } = useOrganizationContext();
    const connect = useConnect(orgId);
    const { data = [], isLoading, error } = useIntegrationsQuery({ orgId: orgId ?? '', kind }, { skip: !orgId });
    const copy = COPY[kind];
    // Just made with a key or a service account: its page says so, as after a consent (`?connected=1`).
    const open = (integration: Integration) =>
      void router.push(`${configurationPathOf(orgId!, kind, integration.id, integration.platform)}?connected=1`);
    const mayCreate = role ? can(role, kind, 'create') : false;

    return (
      <div className="stack" style={{ gap: '2rem' }}>
        <Title>{copy.title}</Title>
        <div>
          <h1>{copy.title}</h1>
          <p className="muted">{copy.lead}</p>
        </div>
        {!orgId || !role || isLoading ? (
          <Spinner label={`Loading ${copy.title.toLowerCase()}`} />
        ) : error ? (
          <Alert>{messageOf(error, `Could not load your ${copy.title.toLowerCase()}.`)}</Alert>
        ) : data.length === 0 ? (
          <p className="empty-state" data-testid="empty-state">
            {copy.empty}
          </p>
        ) : (
          <table className="table table--cards" aria-label={copy.title}>
            <TableHead columns={['Name', 'Platform', 'Login', 'Accounts', 'Status', 'Connected']} />
            <tbody>
              {data.map((integration) => (
                <tr key={integration.id}>
                  <NameCell href={configurationPathOf(orgId, kind, integration.id, integration.platform)}>{integration.name}</NameCell>
                  <td data-label="Platform">{PLATFORM_LABELS[integration.platform]}</td>
                  <td data-label="Login">
                    <span className="cell-wrap">{integration.accountName}</span>
                  </td>
                  <td data-label="Accounts">{integration.accounts.length || '—'}</td>
                  <td data-label="Status">
                    <StatusBadge status={integration.status} />
                  </td>
                  <td data-label="Connected">{formatDate(integration.connectedAt)}</td>
                  <td className="actions">
                    {integration.status === 'needs_reauth' && <ReconnectButton orgId={orgId} integration={integration} small />}
                    <ConfigureButton href={configurationPathOf(orgId, kind, integration.id, integration.platform)} />
                    {can(role, kind, 'delete') && (
                      <IntegrationDeleteButton
                        orgId={orgId}
                        kind={kind}
                        id={integration.id}
                        name={integration.name}
                        small
                        onDeleted={() => undefined}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {orgId && mayCreate && (
          <section className="stack" aria-labelledby="connect-title">
            <h2 id="connect-title">Connect {kind === 'source' ? 'a source' : 'a destination'}</h2>
            {publicConfig.platformSandboxUrl && (
              <p className="alert alert--info">
                Local sandbox: consent screens, test credentials and a revoke button are at{' '}
                <a href={publicConfig.platformSandboxUrl} target="_blank" rel="noreferrer">
                  the platform sandbox
                </a>
                .
              </p>
            )}
            <div className="actions" style={{ justifyContent: 'flex-start' }}>
              {PLATFORMS_OF_KIND[kind].filter(isOAuthPlatform).map((platform) => (
                <Button key={platform} type="button" variant="secondary" onClick={() => connect(platform, kind)}>
                  Connect {PLATFORM_LABELS[platform]}
                </Button>
              ))}
            </div>
            {kind === 'destination' && <ReuseLoginOffers orgId={orgId} />}
            {kind === 'destination' && (
              <div className="grid-2">
                <MixpanelForm orgId={orgId} onCreated={(created) => open(created)} />
                <BigQueryKeyForm orgId={orgId} onCreated={(created) => open(created)} />
              </div>
            )}
          </section>
        )}
      </div>
    );
  }
  return IntegrationsPage;
}
