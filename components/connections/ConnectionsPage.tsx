import Link from 'next/link';
import DeadLettersNotice from '@/components/support/DeadLettersNotice';
import { connectionPath, createConnectionPath } from '@/components/connections/paths';
import {
  ConnectionStatusBadge,
  deadObjectOf,
  destinationInWords,
  ReconnectLink,
  RunOutcomeBadge,
  sourceInWords,
} from '@/components/connections/shared';
import { RelativeTime, useNow } from '@/components/ui/time';
import { cannotCreate, messageOf, Title } from '@/components/integrations/shared';
import { useOrganizationContext } from '@/components/organizations/useOrganizationContext';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { isAdPlatform, PLATFORM_LABELS, type Integration, isAdDataDestination } from '@/lib/shared/integrations/platforms';
import { scheduleInWords } from '@/lib/shared/connections/connection';
import { can } from '@/lib/shared/permissions';
import { connectionsApi, useConnectionsQuery } from '@/store/connectionsApi';
import { useIntegrationsQuery } from '@/store/integrationsApi';
import Guide, { type GuideStep } from '@/components/ui/Guide';
import { ConfigureButton, NameCell } from '@/components/ui/ListRow';

/** While a run is in progress or due the list refreshes, so its outcome shows without a reload. */
const RUNNING_REFRESH_MS = 10_000;

const isDataDestination = (integration: Integration) => isAdDataDestination(integration.platform);

/**
 * The first-run guide of an organization without connections (users land here after login): connect a
 * source, connect a destination, create the connection, each with its state.
 */
function FirstRunGuide({
  orgId,
  sources,
  destinations,
  mayCreate,
}: {
  orgId: string;
  sources: Integration[];
  destinations: Integration[];
  mayCreate: boolean;
}) {
  const org = `/${encodeURIComponent(orgId)}`;
  const adSources = sources.filter((source) => isAdPlatform(source.platform));
  const dataDestinations = destinations.filter(isDataDestination);
  const sourceDone = adSources.length > 0;
  const destinationDone = dataDestinations.length > 0;
  const ready = sourceDone && destinationDone;
  const named = (objects: Integration[]) => objects.map((object) => `${object.name} (${PLATFORM_LABELS[object.platform]})`).join(', ');
  const steps: GuideStep[] = [
    {
      title: 'Connect an ad platform',
      done: sourceDone,
      detail: sourceDone
        ? `Connected: ${named(adSources)}.`
        : 'Google Ads, Meta Ads or Microsoft Advertising: the accounts your spend, clicks and impressions come from.',
      action: { href: `${org}/source`, label: sourceDone ? 'Manage sources' : 'Connect a source' },
    },
    {
      title: 'Connect a destination',
      done: destinationDone,
      detail: destinationDone
        ? `Connected: ${named(dataDestinations)}.`
        : 'BigQuery (a table in your project) or Mixpanel (events in your project): where the daily figures land.',
      action: { href: `${org}/destination`, label: destinationDone ? 'Manage destinations' : 'Connect a destination' },
    },
    {
      title: 'Create the connection',
      done: false,
      detail: ready
        ? 'Pick the accounts, the level of detail and a schedule. The first run starts at once.'
        : 'Once a source and a destination are connected, choose which accounts go where and how often.',
      action: mayCreate ? { href: createConnectionPath(orgId), label: 'Create a connection' } : null,
      enabled: ready,
    },
  ];
  return (
    <Guide
      id="guide-title"
      title="Get started in three steps"
      summary="No connections yet. A connection copies your ad performance into your warehouse or analytics on a schedule."
      label="Getting started"
      testId="empty-state"
      steps={steps}
    >
      {!mayCreate && <p className="muted">{cannotCreate('connections')}</p>}
    </Guide>
  );
}

/** `/{orgId}/connection`: every connection, its route, schedule and how its last run went; an empty organization gets the guide. */
export function ConnectionsPage() {
  const { orgId, role } = useOrganizationContext();
  const now = useNow();
  // What is cached decides the polling of the subscription below (no second request).
  const cached = connectionsApi.endpoints.connections.useQueryState(orgId ?? '', { skip: !orgId });
  const running =
    cached.data?.some(
      (connection) =>
        connection.runningRunId ||
        (connection.status === 'active' && connection.nextRunAt && new Date(connection.nextRunAt).getTime() <= now),
    ) ?? false;
  const {
    data = [],
    isLoading,
    error,
  } = useConnectionsQuery(orgId ?? '', { skip: !orgId, pollingInterval: running ? RUNNING_REFRESH_MS : 0, skipPollingIfUnfocused: true });
  const sources = useIntegrationsQuery({ orgId: orgId ?? '', kind: 'source' }, { skip: !orgId });
  const destinations = useIntegrationsQuery({ orgId: orgId ?? '', kind: 'destination' }, { skip: !orgId });
  const mayCreate = role ? can(role, 'connection', 'create') : false;
  const empty = !isLoading && !error && data.length === 0;
  const guideLoading = empty && (sources.isLoading || destinations.isLoading);

  return (
    <div className="stack" style={{ gap: '2rem' }}>
      <Title>Connections</Title>
      <div className="toolbar">
        <div>
          <h1>Connections</h1>
          <p className="muted">
            Ad performance from Google Ads, Meta and Microsoft Advertising, copied into BigQuery or Mixpanel on a schedule.
          </p>
        </div>
        {orgId && mayCreate && data.length > 0 && (
          <Link className="button" href={createConnectionPath(orgId)}>
            New connection
          </Link>
        )}
      </div>
      {orgId && <DeadLettersNotice orgId={orgId} queue="sync" />}
      {!orgId || !role || isLoading || guideLoading ? (
        <Spinner label="Loading connections" />
      ) : error ? (
        <Alert>{messageOf(error, 'Could not load your connections.')}</Alert>
      ) : data.length === 0 ? (
        sources.error || destinations.error ? (
          <Alert>{messageOf(sources.error ?? destinations.error, 'Could not load your sources and destinations.')}</Alert>
        ) : (
          <FirstRunGuide orgId={orgId} sources={sources.data ?? []} destinations={destinations.data ?? []} mayCreate={mayCreate} />
        )
      ) : (
        <table className="table table--cards" aria-label="Connections">
          <TableHead columns={['Name', 'From → to', 'Schedule', 'Status', 'Last run', 'Next run']} />
          <tbody>
            {data.map((connection) => (
              <tr key={connection.id}>
                <NameCell href={connectionPath(orgId, connection.id)}>{connection.name}</NameCell>
                <td data-label="From → to">
                  <span className="cell-wrap">
                    {sourceInWords(connection)} → {destinationInWords(connection)}
                  </span>
                </td>
                <td data-label="Schedule">
                  <span className="cell-wrap" style={{ minWidth: '6rem' }}>
                    {scheduleInWords(connection.schedule)}
                  </span>
                </td>
                <td data-label="Status">
                  <ConnectionStatusBadge status={connection.status} pausedByPlan={connection.pausedByPlan} />
                  {connection.status === 'needs_reauth' && (
                    <>
                      {' '}
                      <ReconnectLink
                        orgId={orgId}
                        connection={connection}
                        dead={deadObjectOf(connection, sources.data, destinations.data)}
                      />
                    </>
                  )}
                </td>
                <td data-label="Last run">
                  {connection.runningRunId ? (
                    <RunOutcomeBadge outcome="running" />
                  ) : connection.lastRun ? (
                    <>
                      <RunOutcomeBadge outcome={connection.lastRun.outcome} /> <RelativeTime iso={connection.lastRun.at} now={now} />
                    </>
                  ) : (
                    <span className="muted">Never</span>
                  )}
                </td>
                <td data-label="Next run">
                  {connection.status === 'paused' ? (
                    <span className="muted">Paused</span>
                  ) : connection.status === 'needs_reauth' ? (
                    <span className="muted">After reconnecting</span>
                  ) : connection.nextRunAt ? (
                    new Date(connection.nextRunAt).getTime() <= now ? (
                      'Due now'
                    ) : (
                      <RelativeTime iso={connection.nextRunAt} now={now} />
                    )
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="actions">
                  <ConfigureButton href={connectionPath(orgId, connection.id)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
