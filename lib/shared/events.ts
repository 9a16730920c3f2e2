/** The product analytics events of docs/PRODUCT.md §6: the one place their names are written. */
export const ANALYTICS_EVENTS = {
  accountCreated: 'Account Created',
  connectionCreated: 'Connection Created',
  sourceCreated: 'Source Created',
  destinationCreated: 'Destination Created',
  errorReceived: 'Error Received',
  organizationCreated: 'Organization Created',
  organizationJoined: 'Organization Joined',
  planSelected: 'Plan Selected',
  sourceDeleted: 'Source Deleted',
  destinationDeleted: 'Destination Deleted',
  connectionDeleted: 'Connection Deleted',
  sourceReauthenticated: 'Source Reauthenticated',
  destinationReauthenticated: 'Destination Reauthenticated',
  connectionHistoricalBackfillStarted: 'Connection Historical Backfill Started',
} as const;

export type AnalyticsEvent = (typeof ANALYTICS_EVENTS)[keyof typeof ANALYTICS_EVENTS];
