import Cookies from 'js-cookie';
import Head from 'next/head';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useState } from 'react';
import { useInvitationResponse } from '@/components/team/useInvitationResponse';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { PENDING_INVITATION_COOKIE, parsePendingInvitation } from '@/lib/navigation';
import { INVITATION_MESSAGES, INVITATION_TTL_DAYS } from '@/lib/team';
import { usePendingInvitationsQuery } from '@/store/api';
import { useAppDispatch, useAppSelector, useRehydrated } from '@/store/hooks';
import { pendingInvitationStored, selectUser } from '@/store/userSlice';

function InvitationDecision({ invitationId, email }: { invitationId: string; email: string }) {
  const { data: invitations, isLoading, isError } = usePendingInvitationsQuery(email);
  const { acceptInvitation, rejectInvitation, error, busy } = useInvitationResponse();
  // SPEC.md §5: the check accepts only the invitation whose id matches the pending-invitation cookie.
  // Read once: the cookie is cleared below when the invitation turns out to be gone.
  const [cookieMatches] = useState(
    () => parsePendingInvitation(Cookies.get(PENDING_INVITATION_COOKIE))?.invitationId === invitationId,
  );

  const invitation = invitations?.find((candidate) => candidate.id === invitationId);
  const gone = !isLoading && !isError && cookieMatches && !invitation;
  useEffect(() => {
    // A revoked or expired invitation should not bring the user back here at every sign-in.
    if (gone) Cookies.remove(PENDING_INVITATION_COOKIE, { path: '/' });
  }, [gone]);

  if (isLoading) return <Spinner label="Checking your invitation" />;
  if (isError || !cookieMatches) return <Alert>{INVITATION_MESSAGES.check}</Alert>;
  if (!invitation) {
    return (
      <>
        <Alert>{INVITATION_MESSAGES.none}</Alert>
        <p className="muted">
          The invitation may have expired, been revoked or been sent to another email than {email}.{' '}
          <Link href="/organizations">Go to your organizations</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <p>
        <strong>{invitation.inviterEmail}</strong> invited you to join <strong>{invitation.organizationName}</strong> as{' '}
        {invitation.role}.
      </p>
      <p className="muted">This invitation expires on {new Date(invitation.expiresAt).toLocaleDateString()}.</p>
      {error && <Alert>{error}</Alert>}
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="button" busy={busy} onClick={() => acceptInvitation(invitation.id)}>
          Accept invitation
        </Button>
        <Button type="button" variant="secondary" disabled={busy} onClick={() => rejectInvitation(invitation.id, { leave: true })}>
          Decline
        </Button>
      </div>
    </>
  );
}

/**
 * The link in an invitation email. It remembers the invitation in a cookie, so that a visitor who
 * first has to sign in or sign up comes back here afterwards.
 */
export default function AcceptInvitationPage() {
  const { query, isReady } = useRouter();
  const dispatch = useAppDispatch();
  const rehydrated = useRehydrated();
  const user = useAppSelector(selectUser);
  const orgId = typeof query.orgId === 'string' ? query.orgId : '';
  const invitationId = typeof query.id === 'string' ? query.id : '';

  useEffect(() => {
    // After rehydration, or the stored user read back from storage would overwrite it.
    if (!rehydrated || !isReady || !orgId || !invitationId) return;
    Cookies.set(PENDING_INVITATION_COOKIE, `${orgId}/${invitationId}`, {
      path: '/',
      sameSite: 'lax',
      expires: INVITATION_TTL_DAYS,
    });
    dispatch(pendingInvitationStored(invitationId));
  }, [rehydrated, isReady, orgId, invitationId, dispatch]);
  const remembered = Boolean(invitationId) && user.pendingInvitationId === invitationId;

  return (
    <section className="card stack" style={{ maxWidth: 560, margin: '0 auto' }}>
      <Head>
        <title>Invitation · SignalBridge</title>
      </Head>
      <h1>You are invited</h1>
      {!rehydrated || !remembered ? (
        <Spinner label="Loading" />
      ) : user.isAuthenticated && user.email ? (
        <InvitationDecision invitationId={invitationId} email={user.email.toLowerCase()} />
      ) : (
        <>
          <p>Log in, or create an account with the email address the invitation was sent to, to accept it.</p>
          <div className="actions" style={{ justifyContent: 'flex-start' }}>
            <Link className="button" href="/login">
              Log in
            </Link>
            <Link className="button button--secondary" href="/signUp">
              Create an account
            </Link>
          </div>
        </>
      )}
    </section>
  );
}
