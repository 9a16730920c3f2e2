import Guide, { type GuideStep } from '@/components/ui/Guide';
import type { App } from '@/lib/shared/integrations/apps';
import { useConversionsQuery } from '@/store/conversionsApi';

/**
 * A new app's way to its first conversion, as the connections page guides a first connection: a key,
 * the website snippet, routing, a test event. Each step ticks from what is true now (the key exists, the
 * snippet's key was made, a conversion takes the app's events, one of them has delivered an event),
 * never from a click. Gone once every step is done.
 */
export default function AppChecklist({ orgId, app }: { orgId: string; app: App }) {
  const conversions = useConversionsQuery(orgId);
  const ofApp = (conversions.data ?? []).filter((conversion) => conversion.source.type === 'app' && conversion.source.appId === app.id);
  const base = `/${encodeURIComponent(orgId)}/app/${encodeURIComponent(app.id)}`;
  const routed = ofApp.length > 0 || Object.keys(app.targets).length > 0 || Boolean(app.bigqueryDestinationId || app.mixpanelDestinationId);
  const delivered = ofApp.some((conversion) => conversion.lastDeliveryAt !== null);
  const steps: GuideStep[] = [
    {
      title: 'Create a submission key',
      done: app.submissionKey !== null,
      detail: app.submissionKey
        ? `Key ${app.submissionKey.prefix}… is active.`
        : 'The secret key your server sends events with (POST /api/submissions).',
      action: { href: `${base}/custom-submission`, label: app.submissionKey ? 'Endpoint and key' : 'Create a key' },
    },
    {
      title: 'Add the website snippet',
      done: app.publishableKey === 'active',
      detail:
        app.publishableKey === 'active'
          ? `The snippet has its key: paste it ${app.gtmContainerId ? 'in Google Tag Manager' : 'into your pages'} if you have not yet.`
          : `${app.gtmContainerId ? `A Google Tag Manager tag for ${app.gtmContainerId}` : 'A script for the pages of your site'} that sends the forms and purchases of ${app.websiteUrl}.`,
      action: { href: `${base}/custom-submission`, label: 'Show the snippet' },
    },
    {
      title: 'Route conversions to an ad platform',
      done: routed,
      detail: routed
        ? 'Conversions of this app have somewhere to go.'
        : 'Pick where its events go: Google Ads, Meta, Microsoft, BigQuery or Mixpanel.',
      action: { href: '#where-conversions-go', label: routed ? 'See the routing' : 'Set up routing' },
    },
    {
      title: 'Send a test event',
      done: delivered,
      detail: delivered
        ? 'An event of this app has been delivered.'
        : 'Post one event with the curl example (or submit a form on your site); this ticks once it is delivered.',
      action: { href: `${base}/custom-submission`, label: 'Copy the example' },
    },
  ];
  if (conversions.isLoading || steps.every((step) => step.done)) return null;
  const left = steps.filter((step) => !step.done).length;
  return (
    <Guide
      id="app-guide-title"
      title="Get this app sending conversions"
      summary={left === 1 ? 'One step left.' : `${left} steps left.`}
      label="Getting started with this app"
      testId="app-checklist"
      steps={steps}
    />
  );
}
