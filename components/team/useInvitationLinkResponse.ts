import Cookies from 'js-cookie';
import { useRouter } from 'next/router';
import { useState } from 'react';
import { failureMessage } from '@/components/team/failure';
import { forgetInvitationToken, useAcceptInvitationByLinkMutation, useRejectInvitationByLinkMutation } from '@/components/team/invitationLink';
import { PENDING_INVITATION_COOKIE } from '@/lib/navigation';
import { INVITATION_MESSAGES } from '@/lib/team';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { fetchOrganizations } from '@/store/thunks';
import { organizationSelected, pendingInvitationStored, selectUser } from '@/store/userSlice';

/**
 * useInvitationResponse for the link page: the same outcomes (accept → into the organization, decline →
 * /organizations), with the link's secret sent along and forgotten once the invitation is answered.
 */
export function useInvitationLinkResponse(invitationId: string, token: string | undefined) {
  const router = useRouter();
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const [accept, accepting] = useAcceptInvitationByLinkMutation();
  const [reject, rejecting] = useRejectInvitationByLinkMutation();
  const [error, setError] = useState<string | null>(null);

  function forgetInvitation() {
    Cookies.remove(PENDING_INVITATION_COOKIE, { path: '/' });
    forgetInvitationToken(invitationId);
    dispatch(pendingInvitationStored(null));
  }

  async function acceptInvitation() {
    setError(null);
    const result = await accept({ invitationId, userId: user.uid ?? '', token });
    if ('error' in result) return setError(failureMessage(INVITATION_MESSAGES.accept, result.error));
    forgetInvitation();
    await dispatch(fetchOrganizations());
    dispatch(organizationSelected({ orgId: result.data.organizationId }));
    await router.push(`/${encodeURIComponent(result.data.organizationId)}/connection`);
  }

  async function rejectInvitation() {
    setError(null);
    const result = await reject({ invitationId, token });
    if ('error' in result) return setError(failureMessage(INVITATION_MESSAGES.reject, result.error));
    forgetInvitation();
    await router.push('/organizations');
  }

  return { acceptInvitation, rejectInvitation, error, busy: accepting.isLoading || rejecting.isLoading };
}
