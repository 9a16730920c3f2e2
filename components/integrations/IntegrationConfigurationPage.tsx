import { useRouter } from 'next/router';
import { useCallback, useState, type FormEvent } from 'react';
import AccountPicker from '@/components/integrations/AccountPicker';
import IntegrationDeleteButton from '@/components/integrations/IntegrationDeleteButton';
import NextStep from '@/components/integrations/NextStep';
import ReconnectNotice from '@/components/integrations/ReconnectNotice';
import { formatDate, LoadFailed, messageOf, StatusBadge, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Button from '@/components/ui/Button';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import TextField from '@/components/ui/TextField';
import { PLATFORM_LABELS, type Integration, type IntegrationKind, accountNounOf } from '@/lib/shared/integrations/platforms';
import { can, type Role } from '@/lib/shared/permissions';
import { useIntegrationQuery, useUpdateIntegrationMutation } from '@/store/integrationsApi';

function RenameForm({ orgId, integration, role }: { orgId: string; integration: Integration; role: Role }) {
  const [name, setName] = useState(integration.name);
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const [save, { isLoading }] = useUpdateIntegrationMutation();
  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await save({ orgId, kind: integration.kind, id: integration.id, name });
    setNotice('error' in result ? { ok: false, text: messageOf(result.error, 'Could not rename it.') } : { ok: true, text: 'Name saved.' });
  }
  if (!can(role, integration.kind, 'update')) return null;
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Rename">
      <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
      <Button type="submit" variant="secondary" busy={isLoading}>
        Save name
      </Button>
      <Notice notice={notice} />
    </form>
  );
}

/** A source's or destination's configuration: status, name, accounts (SourceSettings), delete. */
export function IntegrationConfiguration({ orgId, role, kind, id }: { orgId: string; role: Role; kind: IntegrationKind; id: string }) {
  const router = useRouter();
  const { data: integration, isLoading, error, refetch } = useIntegrationQuery({ orgId, kind, id });
  const onNeedsReauth = useCallback(() => void refetch(), [refetch]);
  const label = kind === 'source' ? 'Source' : 'Destination';

  if (isLoading) return <Spinner label={`Loading the ${kind}`} />;
  if (error || !integration) return <LoadFailed title={label} error={error} fallback={`${label} not found.`} />;
  const justConnected = router.query.connected === '1';
  // What its picked accounts are called; none for a platform whose login names its one project (Mixpanel).
  const nouns = accountNounOf(integration.platform);
  const reconnected = router.query.reconnected === '1';
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>{integration.name}</Title>
      <div className="stack" style={{ gap: '0.4rem' }}>
        <h1>{integration.name}</h1>
        <p className="muted">
          {PLATFORM_LABELS[integration.platform]} · {integration.accountName} · connected {formatDate(integration.connectedAt)}{' '}
          <StatusBadge status={integration.status} />
        </p>
      </div>
      {integration.status === 'needs_reauth' ? (
        <ReconnectNotice orgId={orgId} integration={integration} />
      ) : reconnected ? (
        <div role="status" className="alert alert--success">
          Reconnected. {PLATFORM_LABELS[integration.platform]} accepts SignalBridge again.
        </div>
      ) : justConnected ? (
        <div role="status" className="alert alert--success">
          {label} created. {nouns ? `Now pick the ${nouns.many} it covers.` : ''}
        </div>
      ) : null}
      {/* Nothing to pick (Mixpanel's login names its project): it is ready, so the next step comes at once. */}
      {justConnected && !nouns && integration.status === 'active' && <NextStep orgId={orgId} integration={integration} />}
      <RenameForm key={integration.name} orgId={orgId} integration={integration} role={role} />
      {!nouns ? (
        <section className="stack" aria-label={`${PLATFORM_LABELS[integration.platform]} project`}>
          <h2>Project</h2>
          <p>
            Project {integration.settings.projectId} in the {integration.settings.residency} data center.
          </p>
        </section>
      ) : (
        integration.status === 'active' && (
          <AccountPicker orgId={orgId} integration={integration} canEdit={can(role, kind, 'update')} onNeedsReauth={onNeedsReauth} />
        )
      )}
      {can(role, kind, 'delete') && (
        <section className="stack" aria-labelledby="danger-title">
          <h2 id="danger-title">Delete</h2>
          <p className="muted">Deleting removes the login from SignalBridge. Connections and apps that use it must let go of it first.</p>
          <div>
            <IntegrationDeleteButton
              orgId={orgId}
              kind={kind}
              id={id}
              name={integration.name}
              small
              onDeleted={() => void router.push(`/${encodeURIComponent(orgId)}/${kind}`)}
            />
          </div>
        </section>
      )}
    </div>
  );
}

/** The configuration route of a source (per platform) or destination. */
export function integrationConfigurationPage(kind: IntegrationKind) {
  function IntegrationConfigurationPage() {
    const { query } = useRouter();
    const { orgId, role } = useOrganizationContext();
    const id = typeof query.id === 'string' ? query.id : null;
    if (!orgId || !role || !id) return <Spinner label="Loading" />;
    return <IntegrationConfiguration key={id} orgId={orgId} role={role} kind={kind} id={id} />;
  }
  return IntegrationConfigurationPage;
}
