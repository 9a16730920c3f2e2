import type { AnalyticsEvent } from '@/lib/shared/events';
import { customerioErrorFields, identifyPerson, trackPersonEvent, type Traits } from '@/lib/server/vendors/customerio';
import { log } from '@/lib/server/log';

let warnedNotConfigured = false;

function notConfigured(): void {
  if (warnedNotConfigured || process.env.NODE_ENV === 'test') return;
  warnedNotConfigured = true;
  log.warn(
    { component: 'analytics' },
    'Customer.io tracking is not configured (CUSTOMERIO_SITE_ID, CUSTOMERIO_API_KEY): events are dropped',
  );
}

/**
 * Records that something happened, from the server that knows it did. Never throws: a Customer.io
 * failure must not break the user's action, so it is logged and the action goes on.
 */
export async function trackEvent(userId: string, event: AnalyticsEvent, properties: Record<string, unknown> = {}) {
  try {
    if (!(await trackPersonEvent(userId, event, properties))) notConfigured();
  } catch (error) {
    log.error(
      { component: 'analytics', userId, analyticsEvent: event, ...customerioErrorFields(error) },
      'could not record an analytics event',
    );
  }
}

/** Creates or updates the person in Customer.io; logged, never thrown. */
export async function identifyUser(userId: string, traits: Traits): Promise<boolean> {
  try {
    if (!(await identifyPerson(userId, traits))) notConfigured();
    return true;
  } catch (error) {
    log.error({ component: 'analytics', userId, ...customerioErrorFields(error) }, 'could not identify a person in Customer.io');
    return false;
  }
}
