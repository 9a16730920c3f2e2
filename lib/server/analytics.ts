import type { AnalyticsEvent } from '@/lib/analytics/events';

/**
 * Records that something happened, from the server that knows it did. The Customer.io client
 * arrives with the analytics issue; until then events are only logged. Never throws: analytics
 * must not break the user's action.
 */
export async function trackEvent(userId: string, event: AnalyticsEvent, properties: Record<string, unknown> = {}) {
  try {
    if (process.env.NODE_ENV !== 'test') console.info(`[analytics] ${event}`, { userId, ...properties });
  } catch {
    // logging only
  }
}
