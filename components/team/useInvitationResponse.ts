import Cookies from 'js-cookie';
import { useRouter } from 'next/router';
import { useState } from 'react';
import { failureMessage } from '@/components/team/failure';
import { forgetInvitationToken } from '@/components/team/invitationLink';
import { PENDING_INVITATION_COOKIE } from '@/lib/shared/navigation';
import { INVITATION_MESSAGES } from '@/lib/shared/team';
import { useAcceptInvitationMutation, useRejectInvitationMutation } from '@/store/api';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { fetchOrganizations } from '@/store/thunks';
import { organizationSelected, pendingInvitationStored, selectUser } from '@/store/userSlice';

/**
 * Accept → organizations refreshed, the user lands in the organization; reject → /organizations (or
 * stays, with `leave: false`). `token` is the emailed link's secret when the invitee came through it;
 * once the invitation is answered, the browser forgets it and the pending-invitation cookie.
 */
export function useInvitationResponse() {
  const router = useRouter();
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const [accept, accepting] = useAcceptInvitationMutation();
  const [reject, rejecting] = useRejectInvitationMutation();
  const [error, setError] = useState<string | null>(null);

  function forgetInvitation(invitationId: string) {
    Cookies.remove(PENDING_INVITATION_COOKIE, { path: '/' });
    forgetInvitationToken(invitationId);
    dispatch(pendingInvitationStored(null));
  }

  async function acceptInvitation(invitationId: string, token?: string) {
    setError(null);
    const result = await accept({ invitationId, userId: user.uid ?? '', token });
    if ('error' in result) return setError(failureMessage(INVITATION_MESSAGES.accept, result.error));
    forgetInvitation(invitationId);
    await dispatch(fetchOrganizations());
    dispatch(organizationSelected({ orgId: result.data.organizationId }));
    await router.push(`/${encodeURIComponent(result.data.organizationId)}/connection`);
  }

  async function rejectInvitation(invitationId: string, { leave, token }: { leave: boolean; token?: string }) {
    setError(null);
    const result = await reject({ invitationId, token });
    if ('error' in result) return setError(failureMessage(INVITATION_MESSAGES.reject, result.error));
    forgetInvitation(invitationId);
    if (leave) await router.push('/organizations');
  }

  return { acceptInvitation, rejectInvitation, error, busy: accepting.isLoading || rejecting.isLoading };
}
