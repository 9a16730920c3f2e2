import { createApi, type BaseQueryFn } from '@reduxjs/toolkit/query/react';
import { apiRequest, ApiRequestError } from '@/lib/client/apiClient';
import type { PlanWithPrice } from '@/lib/shared/billing/plans';
import type { OrganizationRole } from '@/lib/shared/permissions';
import type { PendingInvitation, SentInvitation, TeamMember } from '@/lib/shared/team';

interface Request {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
}

export interface ApiFailure {
  status: number;
  /** The server's code: decisions are made on it ('needs_reauth'), not on the status, which several codes share. */
  code: string;
  message: string;
  fieldErrors: Record<string, string[]>;
}

const baseQuery: BaseQueryFn<Request, unknown, ApiFailure> = async ({ url, method = 'POST', body }) => {
  try {
    return { data: await apiRequest(url, { method, body }) };
  } catch (error) {
    return error instanceof ApiRequestError
      ? { error: { status: error.status, code: error.code, message: error.message, fieldErrors: error.fieldErrors } }
      : { error: { status: 0, code: '', message: 'An unexpected error occurred', fieldErrors: {} } };
  }
};

const org = (orgId: string) => `/api/orgs/${encodeURIComponent(orgId)}`;

/** Server data of teams and invitations, cached per organization and refreshed by the mutations. */
export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: ['Members', 'SentInvitations', 'PendingInvitations'],
  endpoints: (build) => ({
    plans: build.query<PlanWithPrice[], void>({
      query: () => ({ url: '/api/billing/plans', method: 'GET' }),
      transformResponse: (response: { plans: PlanWithPrice[] }) => response.plans,
    }),
    teamMembers: build.query<TeamMember[], string>({
      query: (organizationId) => ({ url: '/api/getTeamMembers', body: { organizationId } }),
      transformResponse: (response: { members: TeamMember[] }) => response.members,
      providesTags: (_result, _error, orgId) => [{ type: 'Members', id: orgId }],
    }),
    sentInvitations: build.query<SentInvitation[], string>({
      query: (organizationId) => ({ url: '/api/getSentInvitation', body: { organizationId } }),
      transformResponse: (response: { invitations: SentInvitation[] }) => response.invitations,
      providesTags: (_result, _error, orgId) => [{ type: 'SentInvitations', id: orgId }],
    }),
    pendingInvitations: build.query<PendingInvitation[], string>({
      query: (email) => ({ url: '/api/getPendingInvitation', body: { email } }),
      transformResponse: (response: { invitations: PendingInvitation[] }) => response.invitations,
      providesTags: ['PendingInvitations'],
    }),
    sendInvitation: build.mutation<
      { invitationId: string; emailSent: boolean },
      {
        email: string;
        organization_id: string;
        inviter_user_id: string;
        organization: string;
        inviter_email: string;
        role: 'member' | 'admin';
      }
    >({
      query: (body) => ({ url: '/api/sendInvitation', body }),
      invalidatesTags: (_result, _error, { organization_id }) => [{ type: 'SentInvitations', id: organization_id }],
    }),
    resendInvitation: build.mutation<{ emailSent: boolean }, { orgId: string; invitationId: string }>({
      query: ({ orgId, invitationId }) => ({ url: `${org(orgId)}/invitations/${encodeURIComponent(invitationId)}/resend` }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'SentInvitations', id: orgId }],
    }),
    revokeInvitation: build.mutation<unknown, { orgId: string; invitationId: string }>({
      query: ({ orgId, invitationId }) => ({ url: `${org(orgId)}/invitations/${encodeURIComponent(invitationId)}`, method: 'DELETE' }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'SentInvitations', id: orgId }],
    }),
    removeMember: build.mutation<unknown, { organizationId: string; memberId: string }>({
      query: (body) => ({ url: '/api/removeMemberFromOrganization', body }),
      invalidatesTags: (_result, _error, { organizationId }) => [{ type: 'Members', id: organizationId }],
    }),
    changeRole: build.mutation<unknown, { orgId: string; memberId: string; role: OrganizationRole }>({
      query: ({ orgId, memberId, role }) => ({
        url: `${org(orgId)}/members/${encodeURIComponent(memberId)}`,
        method: 'PATCH',
        body: { role },
      }),
      invalidatesTags: (_result, _error, { orgId }) => [{ type: 'Members', id: orgId }],
    }),
    updateOrganization: build.mutation<unknown, { orgId: string; companyName: string; company_logo: string | null }>({
      query: ({ orgId, ...body }) => ({ url: org(orgId), method: 'PATCH', body }),
    }),
    // `token`: the secret of the emailed link, when the invitee came through it (optional beside the fixed fields).
    acceptInvitation: build.mutation<{ organizationId: string }, { invitationId: string; userId: string; token?: string }>({
      query: (body) => ({ url: '/api/acceptInvitation', body }),
      invalidatesTags: ['PendingInvitations'],
    }),
    rejectInvitation: build.mutation<unknown, { invitationId: string; token?: string }>({
      query: (body) => ({ url: '/api/rejectInvitation', body }),
      invalidatesTags: ['PendingInvitations'],
    }),
  }),
});

export const {
  usePlansQuery,
  useTeamMembersQuery,
  useSentInvitationsQuery,
  usePendingInvitationsQuery,
  useSendInvitationMutation,
  useResendInvitationMutation,
  useRevokeInvitationMutation,
  useRemoveMemberMutation,
  useChangeRoleMutation,
  useUpdateOrganizationMutation,
  useAcceptInvitationMutation,
  useRejectInvitationMutation,
} = api;
