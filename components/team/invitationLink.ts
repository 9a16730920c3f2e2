import { useState } from 'react';
import type { InvitationPreview, PendingInvitation } from '@/lib/shared/team';
import { api } from '@/store/api';

/**
 * The secret of an emailed invitation link, kept in this browser while its owner signs up or logs in
 * (the pending-invitation cookie remembers only which invitation). With it, an account whose email is
 * not verified yet may still answer the invitation it was sent.
 */
const storageKey = (invitationId: string) => `invitationToken:${invitationId}`;

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null; // storage blocked: the invitee can still verify their email instead
  }
}

export function rememberInvitationToken(invitationId: string, token: string): void {
  storage()?.setItem(storageKey(invitationId), token);
}

export function invitationTokenFor(invitationId: string): string | undefined {
  return storage()?.getItem(storageKey(invitationId)) ?? undefined;
}

export function forgetInvitationToken(invitationId: string): void {
  storage()?.removeItem(storageKey(invitationId));
}

interface LinkLookup {
  email: string;
  invitationId: string;
  token?: string;
}

/** The link page's own lookup: the one invitation of the link, found with its secret (optional fields of the fixed call). */
export const invitationLinkApi = api.injectEndpoints({
  endpoints: (build) => ({
    invitationByLink: build.query<PendingInvitation | null, LinkLookup>({
      query: (body) => ({ url: '/api/getPendingInvitation', body }),
      transformResponse: (response: { invitations: PendingInvitation[] }, _meta, { invitationId }) =>
        response.invitations.find((invitation) => invitation.id === invitationId) ?? null,
      providesTags: ['PendingInvitations'],
    }),
    /** Signed out: whom the link's invitation is for, from whom, to where. Fails alike for every wrong or old link. */
    invitationPreview: build.query<InvitationPreview, { invitationId: string; token: string }>({
      query: (body) => ({ url: '/api/invitationPreview', body }),
      transformResponse: (response: { invitation: InvitationPreview }) => response.invitation,
    }),
  }),
});

export const { useInvitationByLinkQuery, useInvitationPreviewQuery } = invitationLinkApi;

/**
 * Signed out: the preview of an invitation, read with the link's secret this browser kept (the secret is
 * read once, on the first render); no request without an invitation or a secret.
 */
export function useStoredInvitationPreview(invitationId: string | undefined) {
  const [token] = useState(() => (invitationId ? invitationTokenFor(invitationId) : undefined));
  const link = invitationId && token ? { invitationId, token } : null;
  return useInvitationPreviewQuery(link ?? { invitationId: '', token: '' }, { skip: !link });
}
