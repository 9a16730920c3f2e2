import type { AnalyticsEvent } from '@/lib/shared/events';
import { identifyPerson, trackPersonEvent, type Traits } from '@/lib/server/vendors/customerio';

let warnedNotConfigured = false;

function notConfigured(): void {
  if (warnedNotConfigured || process.env.NODE_ENV === 'test') return;
  warnedNotConfigured = true;
  console.warn('[analytics] Customer.io tracking is not configured (CUSTOMERIO_SITE_ID, CUSTOMERIO_API_KEY): events are dropped');
}

/**
 * Records that something happened, from the server that knows it did. Never throws: a Customer.io
 * failure must not break the user's action, so it is logged and the action goes on.
 */
export async function trackEvent(userId: string, event: AnalyticsEvent, properties: Record<string, unknown> = {}) {
  try {
    if (!(await trackPersonEvent(userId, event, properties))) notConfigured();
  } catch (error) {
    console.error(`[analytics] could not record "${event}"`, { userId, error: error instanceof Error ? error.message : error });
  }
}

/** Creates or updates the person in Customer.io; logged, never thrown. */
export async function identifyUser(userId: string, traits: Traits): Promise<boolean> {
  try {
    if (!(await identifyPerson(userId, traits))) notConfigured();
    return true;
  } catch (error) {
    console.error('[analytics] could not identify', { userId, error: error instanceof Error ? error.message : error });
    return false;
  }
}
