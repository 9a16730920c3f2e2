import Link from 'next/link';
import type { App } from '@/lib/shared/integrations/apps';
import { useConversionsQuery } from '@/store/conversionsApi';
import guide from '@/components/ui/guide.module.css';

interface ChecklistStep {
  title: string;
  done: boolean;
  detail: string;
  action: { href: string; label: string };
}

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
  const steps: ChecklistStep[] = [
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
          ? 'The snippet has its key: paste it in Google Tag Manager if you have not yet.'
          : `A Google Tag Manager tag for ${app.gtmContainerId} that sends the forms of ${app.websiteUrl}.`,
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
    <section className="stack card" aria-labelledby="app-guide-title" data-testid="app-checklist">
      <div>
        <h2 id="app-guide-title" style={{ margin: 0, fontSize: '1.15rem' }}>
          Get this app sending conversions
        </h2>
        <p className="muted" style={{ margin: '0.25rem 0 0' }}>
          {left === 1 ? 'One step left.' : `${left} steps left.`}
        </p>
      </div>
      <ol className={guide.guide} aria-label="Getting started with this app">
        {steps.map((step) => (
          <li key={step.title} className={`${guide.guideStep} ${step.done ? guide.guideDone : ''}`}>
            <div className={guide.guideText}>
              <strong>
                {step.title}
                <span className="sr-only">{step.done ? ' (done)' : ' (to do)'}</span>
              </strong>
              <p className="muted">{step.detail}</p>
              <div>
                <Link className={`button button--small ${step.done ? 'button--secondary' : ''}`.trim()} href={step.action.href}>
                  {step.action.label}
                </Link>
              </div>
            </div>
          </li>
        ))}
      </ol>
    </section>
  );
}
