import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useState } from 'react';
import AppForm from '@/components/apps/AppForm';
import { useRouteApp } from '@/components/apps/useRouteApp';
import { LoadFailed, messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import DeleteButton from '@/components/ui/DeleteButton';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { ConfigureButton, NameCell } from '@/components/ui/ListRow';
import type { App } from '@/lib/shared/integrations/apps';
import { PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { can, type Role } from '@/lib/shared/permissions';
import { useAppsQuery, useCreateAppMutation, useDeleteAppMutation, useUpdateAppMutation } from '@/store/integrationsApi';

// The checklist reads the organization's conversions: loaded after the app is shown, not in the first load.
const AppChecklist = dynamic(() => import('@/components/apps/AppChecklist'));
// Where its events go reads them too: its routings and the conversions from it, one model.
const WhereEventsGo = dynamic(() => import('@/components/apps/WhereEventsGo'), {
  loading: () => <Spinner label="Loading where its events go" />,
});

const appPath = (orgId: string, id: string, rest = '') => `/${encodeURIComponent(orgId)}/app/${encodeURIComponent(id)}${rest}`;

/** Where an app's conversions go, one line per platform. */
export function routingSummary(app: App): string {
  const parts = [
    ...Object.entries(app.targets).map(
      ([platform, target]) => `${PLATFORM_LABELS[platform as keyof typeof PLATFORM_LABELS]}: ${target!.targetName}`,
    ),
    ...(app.bigqueryDestinationId ? ['BigQuery'] : []),
    ...(app.mixpanelDestinationId ? ['Mixpanel'] : []),
  ];
  return parts.length ? parts.join(' · ') : 'Not sending conversions yet';
}

/** An app's delete button, on its row and on its page. */
function AppDeleteButton({ orgId, app, small, onDeleted }: { orgId: string; app: App; small?: boolean; onDeleted: () => void }) {
  const [remove] = useDeleteAppMutation();
  return (
    <DeleteButton
      name={app.name}
      confirmLabel="Delete app"
      small={small}
      explanation={() => <p>Its routing and submission key stop working at once.</p>}
      onDelete={async () => {
        const result = await remove({ orgId, id: app.id });
        return 'error' in result ? messageOf(result.error, 'Could not delete the app.') : null;
      }}
      onDeleted={onDeleted}
    />
  );
}

/** `/{orgId}/app`: the websites the organization tracks. */
export function AppsPage() {
  const { orgId, role } = useOrganizationContext();
  const { data = [], isLoading, error } = useAppsQuery(orgId ?? '', { skip: !orgId });
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>Apps</Title>
      <div className="toolbar">
        <div>
          <h1>Apps</h1>
          <p className="muted">Your websites and products: their tag manager, conversion pages and where conversions go.</p>
        </div>
        {orgId && role && can(role, 'app', 'create') && (
          <Link className="button" href={`/${encodeURIComponent(orgId)}/app/connect`}>
            Add an app
          </Link>
        )}
      </div>
      {!orgId || !role || isLoading ? (
        <Spinner label="Loading apps" />
      ) : error ? (
        <Alert>{messageOf(error, 'Could not load your apps.')}</Alert>
      ) : data.length === 0 ? (
        <p className="empty-state" data-testid="empty-state">
          No apps yet. Add your website to send its conversions to your ad platforms.
        </p>
      ) : (
        <table className="table table--cards" aria-label="Apps">
          <TableHead columns={['Name', 'Website', 'Tag manager', 'Conversions go to']} />
          <tbody>
            {data.map((app) => (
              <tr key={app.id}>
                <NameCell href={appPath(orgId, app.id)}>{app.name}</NameCell>
                <td data-label="Website">
                  <span className="cell-wrap">{app.websiteUrl}</span>
                </td>
                <td data-label="Tag manager">
                  {app.gtmContainerId ? <code>{app.gtmContainerId}</code> : <span className="muted">None</span>}
                </td>
                <td data-label="Conversions go to">{routingSummary(app)}</td>
                <td className="actions">
                  <ConfigureButton href={appPath(orgId, app.id)} />
                  {can(role, 'app', 'delete') && <AppDeleteButton orgId={orgId} app={app} small onDeleted={() => undefined} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** `/{orgId}/app/connect`: a new app. */
export function ConnectAppPage() {
  const router = useRouter();
  const { orgId } = useOrganizationContext();
  const [create, { isLoading, error }] = useCreateAppMutation();
  if (!orgId) return <Spinner label="Loading" />;
  return (
    <div className="stack" style={{ maxWidth: 560 }}>
      <Title>Add an app</Title>
      <h1>Add an app</h1>
      <AppForm
        initial={{ name: '', websiteUrl: '', gtmContainerId: null, payloadUrls: [] }}
        submitLabel="Add app"
        busy={isLoading}
        serverError={error}
        onSubmit={async (fields) => {
          const result = await create({ orgId, ...fields });
          if ('data' in result && result.data) void router.push(appPath(orgId, result.data.app.id));
        }}
      />
    </div>
  );
}

function AppDetails({ orgId, role, app }: { orgId: string; role: Role; app: App }) {
  const router = useRouter();
  const [update, updating] = useUpdateAppMutation();
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>{app.name}</Title>
      <h1>{app.name}</h1>
      <Notice notice={notice} />
      <AppChecklist orgId={orgId} app={app} />
      <section className="grid-2">
        <div className="stack">
          <h2>Details</h2>
          {can(role, 'app', 'update') ? (
            <AppForm
              initial={app}
              submitLabel="Save"
              busy={updating.isLoading}
              serverError={updating.error}
              onSubmit={async (fields) => {
                const result = await update({ orgId, id: app.id, ...fields });
                setNotice('error' in result ? null : { ok: true, text: 'App saved.' });
              }}
            />
          ) : (
            <p>
              {app.websiteUrl}
              {app.gtmContainerId ? (
                <>
                  {' '}
                  · <code>{app.gtmContainerId}</code>
                </>
              ) : null}
            </p>
          )}
        </div>
        <div className="stack">
          <h2 id="where-conversions-go" tabIndex={-1}>
            Where conversions go
          </h2>
          <WhereEventsGo orgId={orgId} app={app} />
          <h2>Events from your server and the website snippet</h2>
          <p className="muted">
            {app.submissionKey ? `Key ${app.submissionKey.prefix}… is active.` : 'No key yet.'}{' '}
            <Link href={appPath(orgId, app.id, '/custom-submission')}>Endpoint and key</Link>
          </p>
        </div>
      </section>
      {can(role, 'app', 'delete') && (
        <div>
          <AppDeleteButton orgId={orgId} app={app} onDeleted={() => void router.push(`/${encodeURIComponent(orgId)}/app`)} />
        </div>
      )}
    </div>
  );
}

/** `/{orgId}/app/{id}`. */
export function AppPage() {
  const { orgId, role, data, isLoading, error } = useRouteApp();
  if (!orgId || !role || isLoading) return <Spinner label="Loading the app" />;
  if (error || !data) return <LoadFailed title="App" error={error} fallback="App not found." />;
  return <AppDetails key={data.id} orgId={orgId} role={role} app={data} />;
}
