import Cookies from 'js-cookie';
import { useRouter } from 'next/router';
import { useState } from 'react';
import { failureMessage } from '@/components/team/failure';
import { PENDING_INVITATION_COOKIE } from '@/lib/navigation';
import { INVITATION_MESSAGES } from '@/lib/team';
import { useAcceptInvitationMutation, useRejectInvitationMutation } from '@/store/api';
import { useAppDispatch, useAppSelector } from '@/store/hooks';
import { fetchOrganizations } from '@/store/thunks';
import { organizationSelected, pendingInvitationStored, selectUser } from '@/store/userSlice';

function forgetPendingInvitation() {
  Cookies.remove(PENDING_INVITATION_COOKIE, { path: '/' });
}

/** Accept → organizations refreshed, the user lands in the organization; reject → /organizations. */
export function useInvitationResponse() {
  const router = useRouter();
  const dispatch = useAppDispatch();
  const user = useAppSelector(selectUser);
  const [accept, accepting] = useAcceptInvitationMutation();
  const [reject, rejecting] = useRejectInvitationMutation();
  const [error, setError] = useState<string | null>(null);

  async function acceptInvitation(invitationId: string) {
    setError(null);
    const result = await accept({ invitationId, userId: user.uid ?? '' });
    if ('error' in result) return setError(failureMessage(INVITATION_MESSAGES.accept, result.error));
    forgetPendingInvitation();
    dispatch(pendingInvitationStored(null));
    await dispatch(fetchOrganizations());
    dispatch(organizationSelected({ orgId: result.data.organizationId }));
    await router.push(`/${encodeURIComponent(result.data.organizationId)}/connection`);
  }

  async function rejectInvitation(invitationId: string, { leave }: { leave: boolean }) {
    setError(null);
    const result = await reject({ invitationId });
    if ('error' in result) return setError(failureMessage(INVITATION_MESSAGES.reject, result.error));
    forgetPendingInvitation();
    dispatch(pendingInvitationStored(null));
    if (leave) await router.push('/organizations');
  }

  return { acceptInvitation, rejectInvitation, error, busy: accepting.isLoading || rejecting.isLoading };
}
