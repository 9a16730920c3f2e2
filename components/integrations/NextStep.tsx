import Link from 'next/link';
import { createConnectionPath } from '@/components/connections/paths';
import { createConversionPath } from '@/components/conversions/paths';
import {
  accountNounOf,
  AD_DATA_DESTINATIONS_IN_WORDS,
  isAdPlatform,
  PLATFORM_LABELS,
  type Integration,
} from '@/lib/shared/integrations/platforms';

/**
 * What a source or destination is for, once it is ready (its accounts saved, or Mixpanel connected): an ad
 * platform's source feeds a connection, an ad platform's destination receives conversions, BigQuery and
 * Mixpanel receive a connection's ad data.
 */
export function nextStepOf(orgId: string, integration: Pick<Integration, 'kind' | 'platform'>) {
  // "these accounts", "these projects"; Mixpanel's login names one project.
  const picked = accountNounOf(integration.platform);
  const these = picked ? `these ${picked.many}` : `this ${PLATFORM_LABELS[integration.platform]} project`;
  if (integration.kind === 'source')
    return {
      text: `Next, copy the spend, clicks and impressions of ${these} into ${AD_DATA_DESTINATIONS_IN_WORDS} with a connection.`,
      label: 'Create a connection',
      href: createConnectionPath(orgId),
    };
  if (isAdPlatform(integration.platform))
    return {
      text: `Next, send the conversions your website, payments or warehouse record to ${these} with a conversion.`,
      label: 'Create a conversion',
      href: createConversionPath(orgId),
    };
  return {
    text: `Next, copy your ad data into ${these} with a connection.`,
    label: 'Create a connection',
    href: createConnectionPath(orgId),
  };
}

/** The next step as a sentence and a link to the page that takes it. */
export default function NextStep({ orgId, integration }: { orgId: string; integration: Pick<Integration, 'kind' | 'platform'> }) {
  const step = nextStepOf(orgId, integration);
  return (
    <p className="next-step" data-testid="next-step">
      <span>{step.text}</span>{' '}
      <Link className="button button--small" href={step.href}>
        {step.label}
      </Link>
    </p>
  );
}
