import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useRouteApp } from '@/components/apps/useRouteApp';
import { fieldErrorOf, LoadFailed, messageOf, Title } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import SelectField from '@/components/ui/SelectField';
import Spinner from '@/components/ui/Spinner';
import type { App } from '@/lib/shared/integrations/apps';
import { isAdPlatform, PLATFORM_LABELS, TARGET_LABEL, type AdPlatform, writesTables } from '@/lib/shared/integrations/platforms';
import { can } from '@/lib/shared/permissions';
import { useIntegrationsQuery, useRouteAppMutation, useTargetsQuery } from '@/store/integrationsApi';

/** Picks the destination, its account and the pixel / conversion action / goal for one ad platform. */
function AdTargetForm({ orgId, app, platform, canEdit }: { orgId: string; app: App; platform: AdPlatform; canEdit: boolean }) {
  const current = app.targets[platform];
  const [destinationId, setDestinationId] = useState(current?.destinationId ?? '');
  const [accountId, setAccountId] = useState(current?.accountId ?? '');
  const [targetId, setTargetId] = useState(current?.targetId ?? '');
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const destinations = useIntegrationsQuery({ orgId, kind: 'destination' });
  const candidates = (destinations.data ?? []).filter((destination) => destination.platform === platform);
  const destination = candidates.find((candidate) => candidate.id === destinationId);
  const targets = useTargetsQuery({ orgId, id: destinationId, accountId }, { skip: !destinationId || !accountId });
  const [save, saving] = useRouteAppMutation();
  const label = TARGET_LABEL[platform];

  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await save({ orgId, id: app.id, routing: { platform, destinationId, accountId, targetId } });
    setNotice(
      'error' in result
        ? { ok: false, text: messageOf(result.error, 'Could not save.') }
        : { ok: true, text: `Conversions of ${app.name} now go to this ${label.toLowerCase()}.` },
    );
  }

  if (destinations.isLoading) return <Spinner label="Loading destinations" />;
  if (candidates.length === 0) {
    return (
      <p className="empty-state">
        Connect a {PLATFORM_LABELS[platform]} destination first, then come back to choose its {label.toLowerCase()}.{' '}
        <Link href={`/${encodeURIComponent(orgId)}/destination`}>Go to destinations</Link>
      </p>
    );
  }
  return (
    <form className="stack" onSubmit={submit} style={{ maxWidth: 480 }}>
      <SelectField
        id="destination"
        label={`${PLATFORM_LABELS[platform]} destination`}
        value={destinationId}
        onChange={(value) => (setDestinationId(value), setAccountId(''), setTargetId(''))}
        options={candidates.map((candidate) => ({
          value: candidate.id,
          label: `${candidate.name}${candidate.status === 'needs_reauth' ? ' (needs reconnecting)' : ''}`,
        }))}
        placeholder="Choose a destination"
      />
      {destination && destination.accounts.length === 0 && (
        <Alert>
          Pick the ad accounts of this destination first.{' '}
          <Link href={`/${encodeURIComponent(orgId)}/destination/${destination.id}/configuration`}>Open the destination</Link>
        </Alert>
      )}
      {destination && destination.accounts.length > 0 && (
        <SelectField
          id="account"
          label="Ad account"
          value={accountId}
          onChange={(value) => (setAccountId(value), setTargetId(''))}
          options={destination.accounts.map((account) => ({ value: account.id, label: `${account.name} · ${account.id}` }))}
          placeholder="Choose an account"
        />
      )}
      {accountId &&
        (targets.isFetching ? (
          <Spinner label={`Loading ${label.toLowerCase()}s from ${PLATFORM_LABELS[platform]}`} />
        ) : targets.error ? (
          <Alert>{messageOf(targets.error, `Could not load the ${label.toLowerCase()}s.`)}</Alert>
        ) : (
          <SelectField
            id="target"
            label={label}
            value={targetId}
            onChange={setTargetId}
            options={(targets.data ?? []).map((target) => ({ value: target.id, label: target.name }))}
            placeholder={`Choose a ${label.toLowerCase()}`}
            error={fieldErrorOf(saving.error, 'targetId')}
          />
        ))}
      <Notice notice={notice} />
      {canEdit && (
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          <Button type="submit" busy={saving.isLoading} disabled={!targetId}>
            Save
          </Button>
        </div>
      )}
    </form>
  );
}

/** BigQuery / Mixpanel: which destination receives the app's conversions (or none). */
function WarehouseForm({
  orgId,
  app,
  platform,
  canEdit,
}: {
  orgId: string;
  app: App;
  platform: 'bigquery' | 'mixpanel';
  canEdit: boolean;
}) {
  const current = platform === 'bigquery' ? app.bigqueryDestinationId : app.mixpanelDestinationId;
  const [destinationId, setDestinationId] = useState(current ?? '');
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const destinations = useIntegrationsQuery({ orgId, kind: 'destination' });
  const [save, saving] = useRouteAppMutation();
  const candidates = (destinations.data ?? []).filter((destination) => destination.platform === platform);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const result = await save({ orgId, id: app.id, routing: { platform, destinationId: destinationId || null } });
    setNotice('error' in result ? { ok: false, text: messageOf(result.error, 'Could not save.') } : { ok: true, text: 'Saved.' });
  }
  if (destinations.isLoading) return <Spinner label="Loading destinations" />;
  return (
    <form className="stack" onSubmit={submit} style={{ maxWidth: 480 }}>
      {candidates.length === 0 && (
        <p className="muted">
          No {PLATFORM_LABELS[platform]} destination yet. <Link href={`/${encodeURIComponent(orgId)}/destination`}>Connect one</Link>
        </p>
      )}
      {writesTables(platform) && (
        <p className="muted">
          Each event is appended once to the table <code>signalbridge.conversions</code> of the destination’s project (created if missing,
          partitioned by day on the event time). Personal identifiers arrive as SHA-256 hashes only.
        </p>
      )}
      <SelectField
        id="destination"
        label={`${PLATFORM_LABELS[platform]} destination`}
        value={destinationId}
        onChange={setDestinationId}
        options={candidates.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
        placeholder="Do not send"
      />
      <Notice notice={notice} />
      {canEdit && (
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          <Button type="submit" busy={saving.isLoading}>
            Save
          </Button>
        </div>
      )}
    </form>
  );
}

/**
 * `/{orgId}/app/{id}/{segment}/configuration`: an ad platform's by its page segment (google, meta,
 * microsoft: the dynamic page), BigQuery's and Mixpanel's by their own pages.
 */
export function AppPlatformPage({ platform }: { platform: AdPlatform | 'bigquery' | 'mixpanel' }) {
  const { orgId, role, data: app, isLoading, error } = useRouteApp();
  if (!orgId || !role || isLoading) return <Spinner label="Loading the app" />;
  if (error || !app) return <LoadFailed title="App" error={error} fallback="App not found." />;
  const canEdit = can(role, 'app', 'update');
  return (
    <div className="stack" style={{ gap: '1.5rem' }}>
      <Title>{`${app.name} · ${PLATFORM_LABELS[platform]}`}</Title>
      <p>
        <Link href={`/${encodeURIComponent(orgId)}/app/${app.id}`}>← {app.name}</Link>
      </p>
      <h1>
        {PLATFORM_LABELS[platform]} for {app.name}
      </h1>
      {isAdPlatform(platform) ? (
        <AdTargetForm orgId={orgId} app={app} platform={platform} canEdit={canEdit} />
      ) : (
        <WarehouseForm orgId={orgId} app={app} platform={platform} canEdit={canEdit} />
      )}
    </div>
  );
}

/** The page of one platform's routing: /{orgId}/app/{id}/{segment}/configuration (one page file per route). */
export function appPlatformPage(platform: AdPlatform | 'bigquery' | 'mixpanel') {
  return function AppWarehousePage() {
    return <AppPlatformPage platform={platform} />;
  };
}
