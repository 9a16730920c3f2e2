import type { AlertKindName, AlertNotification, FailureThreshold } from '@/lib/shared/alerts';
import { api } from '@/store/api';

const orgUrl = (orgId: string) => `/api/orgs/${encodeURIComponent(orgId)}`;

export interface NotificationList {
  notifications: AlertNotification[];
  unread: number;
}

export type EmailPreferences = Record<AlertKindName, boolean>;

// One tag per organization for its notices (the list and the shell's unread count share it).
const noticesTag = (orgId: string) => ({ type: 'Notifications' as const, id: orgId });

/** Alerts: the in-app notices, the person's email settings, the organization's Slack webhook, a conversion's threshold. */
export const alertsApi = api
  .enhanceEndpoints({ addTagTypes: ['Notifications', 'AlertPreferences', 'Slack', 'AlertThreshold'] })
  .injectEndpoints({
    endpoints: (build) => ({
      notifications: build.query<NotificationList, string>({
        query: (orgId) => ({ url: `${orgUrl(orgId)}/notifications`, method: 'GET' }),
        providesTags: (_result, _error, orgId) => [noticesTag(orgId)],
      }),
      markNotificationsRead: build.mutation<unknown, { orgId: string; ids?: string[]; all?: true }>({
        query: ({ orgId, ids, all }) => ({ url: `${orgUrl(orgId)}/notifications/read`, body: all ? { all } : { ids } }),
        invalidatesTags: (_result, _error, { orgId }) => [noticesTag(orgId)],
      }),
      alertPreferences: build.query<EmailPreferences, string>({
        query: (orgId) => ({ url: `${orgUrl(orgId)}/alerts/preferences`, method: 'GET' }),
        transformResponse: (response: { email: EmailPreferences }) => response.email,
        providesTags: (_result, _error, orgId) => [{ type: 'AlertPreferences', id: orgId }],
      }),
      saveAlertPreferences: build.mutation<EmailPreferences, { orgId: string; email: Partial<EmailPreferences> }>({
        query: ({ orgId, email }) => ({ url: `${orgUrl(orgId)}/alerts/preferences`, method: 'PUT', body: { email } }),
        transformResponse: (response: { email: EmailPreferences }) => response.email,
        invalidatesTags: (_result, _error, { orgId }) => [{ type: 'AlertPreferences', id: orgId }],
      }),
      slackSettings: build.query<{ configured: boolean; hint: string | null }, string>({
        query: (orgId) => ({ url: `${orgUrl(orgId)}/alerts/slack`, method: 'GET' }),
        providesTags: (_result, _error, orgId) => [{ type: 'Slack', id: orgId }],
      }),
      saveSlackSettings: build.mutation<{ configured: boolean; hint: string | null }, { orgId: string; webhookUrl: string | null }>({
        query: ({ orgId, webhookUrl }) => ({ url: `${orgUrl(orgId)}/alerts/slack`, method: 'PUT', body: { webhookUrl } }),
        invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Slack', id: orgId }],
      }),
      sendSlackTest: build.mutation<{ sent: true }, string>({
        query: (orgId) => ({ url: `${orgUrl(orgId)}/alerts/slack-test` }),
      }),
      alertThreshold: build.query<FailureThreshold, { orgId: string; id: string }>({
        query: ({ orgId, id }) => ({ url: `${orgUrl(orgId)}/conversions/${encodeURIComponent(id)}/alerts`, method: 'GET' }),
        transformResponse: (response: { threshold: FailureThreshold }) => response.threshold,
        providesTags: (_result, _error, { orgId, id }) => [{ type: 'AlertThreshold', id: `${orgId}/${id}` }],
      }),
      saveAlertThreshold: build.mutation<FailureThreshold, { orgId: string; id: string; threshold: FailureThreshold }>({
        query: ({ orgId, id, threshold }) => ({
          url: `${orgUrl(orgId)}/conversions/${encodeURIComponent(id)}/alerts`,
          method: 'PUT',
          body: threshold,
        }),
        transformResponse: (response: { threshold: FailureThreshold }) => response.threshold,
        invalidatesTags: (_result, _error, { orgId, id }) => [{ type: 'AlertThreshold', id: `${orgId}/${id}` }],
      }),
    }),
  });

export const {
  useNotificationsQuery,
  useMarkNotificationsReadMutation,
  useAlertPreferencesQuery,
  useSaveAlertPreferencesMutation,
  useSlackSettingsQuery,
  useSaveSlackSettingsMutation,
  useSendSlackTestMutation,
  useAlertThresholdQuery,
  useSaveAlertThresholdMutation,
} = alertsApi;
