import { apiRequest } from '@/lib/client/apiClient';
import type { CLIENT_REPORTED_EVENTS } from '@/lib/shared/schemas/analytics';

/** Analytics from the browser go through our server (keys never reach the browser); failures are only logged. */
function quietly(request: Promise<unknown>, what: string): void {
  request.catch((error) => console.error(`[analytics] ${what} failed`, error));
}

export function identifySelf(user: { uid: string; email: string | null; displayName: string | null }): void {
  if (!user.email) return;
  quietly(
    apiRequest('/api/customerio/identify', {
      method: 'POST',
      body: { userId: user.uid, traits: { user_id: user.uid, email: user.email, name: user.displayName ?? '' } },
    }),
    'identify',
  );
}

export function identifyWithOrganization(userId: string, organizationId: string): void {
  quietly(
    apiRequest('/api/identifyUserWithOrganization', { method: 'POST', body: { userId, organizationId } }),
    'identify with organization',
  );
}

export function reportEvent(
  userId: string,
  eventName: (typeof CLIENT_REPORTED_EVENTS)[number],
  properties: Record<string, string | number | boolean | null> = {},
): void {
  quietly(apiRequest('/api/customerio/track', { method: 'POST', body: { userId, eventName, properties } }), eventName);
}
