import Link from 'next/link';
import { conversionPath, ConversionStatusBadge, createConversionPath, targetLabel } from '@/components/conversions/shared';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import Spinner from '@/components/ui/Spinner';
import { conversionsOfApp } from '@/lib/shared/conversions/whereEventsGo';
import type { App } from '@/lib/shared/integrations/apps';
import { AD_PLATFORMS, PLATFORM_LABELS, SEGMENT_OF } from '@/lib/shared/integrations/platforms';
import { useConversionsQuery } from '@/store/conversionsApi';

const appPath = (orgId: string, id: string, rest = '') => `/${encodeURIComponent(orgId)}/app/${encodeURIComponent(id)}${rest}`;

/**
 * Where an app's events go, from one model: the conversions fed by the app (an app's routing to a
 * platform is one of them, made by its platform page). Each ad platform says its routing's status, or
 * which conversions send there instead of "Not set up"; then every conversion from the app, with its status.
 */
export default function WhereEventsGo({ orgId, app }: { orgId: string; app: App }) {
  const { data, isLoading, error } = useConversionsQuery(orgId);
  if (isLoading) return <Spinner label="Loading where its events go" />;
  if (error) return <Alert>{messageOf(error, 'Could not load where this app’s events go.')}</Alert>;
  const ofApp = conversionsOfApp(app.id, data ?? []);
  const own = ofApp.filter((conversion) => !conversion.routing);

  const platforms = AD_PLATFORMS.map((platform) => {
    const routing = ofApp.find((conversion) => conversion.routing && conversion.destination.platform === platform);
    const others = own.filter((conversion) => conversion.destination.platform === platform);
    const label = PLATFORM_LABELS[platform];
    const target = routing?.destination.targetName ?? app.targets[platform]?.targetName;
    return {
      segment: SEGMENT_OF[platform],
      label,
      status: routing ? (
        <>
          <ConversionStatusBadge status={routing.status} pausedByPlan={routing.pausedByPlan} /> Routing every event to {target}
        </>
      ) : target ? (
        `Routing every event to ${target}`
      ) : others.length > 0 ? (
        `No routing · ${others.length === 1 ? `the conversion “${others[0]!.name}” sends` : `${others.length} conversions send`} here`
      ) : (
        'Not set up'
      ),
    };
  });
  const rows = [
    ...platforms,
    {
      segment: 'bigquery',
      label: 'BigQuery',
      status: app.bigqueryDestinationId ? 'Sending to table signalbridge.conversions' : 'Not set up',
    },
    { segment: 'mixpanel', label: 'Mixpanel', status: app.mixpanelDestinationId ? 'Sending' : 'Not set up' },
  ];

  return (
    <div className="stack">
      <table className="table table--cards" aria-label="Where conversions go">
        <tbody>
          {rows.map((row) => (
            <tr key={row.segment}>
              <td>{row.label}</td>
              <td data-label="Status">{row.status}</td>
              <td className="actions">
                <Link href={appPath(orgId, app.id, `/${row.segment}/configuration`)} aria-label={`Configure ${row.label}`}>
                  Configure
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3 style={{ margin: 0 }}>Conversions from this app</h3>
      {own.length === 0 ? (
        <p className="muted" data-testid="app-conversions-empty">
          No conversion takes this app’s events yet. <Link href={createConversionPath(orgId)}>New conversion</Link>
        </p>
      ) : (
        <table className="table table--cards" aria-label="Conversions from this app">
          <tbody>
            {own.map((conversion) => (
              <tr key={conversion.id}>
                <td>
                  <Link href={conversionPath(orgId, conversion.id)}>{conversion.name}</Link>
                </td>
                <td data-label="Sends to">{targetLabel(conversion.destination.platform, conversion.destination.targetName)}</td>
                <td data-label="Status">
                  <ConversionStatusBadge status={conversion.status} pausedByPlan={conversion.pausedByPlan} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
