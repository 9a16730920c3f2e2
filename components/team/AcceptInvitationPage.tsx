import Cookies from 'js-cookie';
import Head from 'next/head';
import Link from 'next/link';
import { useRouter } from 'next/router';
import { useEffect, useState } from 'react';
import { useEmailVerification } from '@/components/auth/useEmailVerification';
import VerifyEmailNotice from '@/components/auth/VerifyEmailNotice';
import {
  forgetInvitationToken,
  invitationTokenFor,
  rememberInvitationToken,
  useInvitationByLinkQuery,
  useStoredInvitationPreview,
} from '@/components/team/invitationLink';
import { useInvitationResponse } from '@/components/team/useInvitationResponse';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import Spinner from '@/components/ui/Spinner';
import { PENDING_INVITATION_COOKIE, parsePendingInvitation } from '@/lib/shared/navigation';
import { INVITATION_MESSAGES, INVITATION_TOKEN_PARAM, INVITATION_TOKEN_PATTERN, INVITATION_TTL_DAYS } from '@/lib/shared/team';
import { useAppDispatch, useAppSelector, useRehydrated } from '@/store/hooks';
import { pendingInvitationStored, selectUser } from '@/store/userSlice';

/** Said when no invitation shows: an unverified email sees one only through its link, so it may verify instead. */
function NoInvitation({ email }: { email: string }) {
  const verification = useEmailVerification();
  return (
    <>
      <Alert>{INVITATION_MESSAGES.none}</Alert>
      <p className="muted">
        The invitation may have expired, been revoked or been sent to another email than {email}.{' '}
        <Link href="/organizations">Go to your organizations</Link>
      </p>
      {verification.status === 'unverified' && <VerifyEmailNotice email={email} verification={verification} />}
    </>
  );
}

function InvitationDecision({ invitationId, email, token }: { invitationId: string; email: string; token: string | undefined }) {
  const { data: invitation, isLoading, isError } = useInvitationByLinkQuery({ email, invitationId, token });
  const { acceptInvitation, rejectInvitation, error, busy } = useInvitationResponse();
  // docs/PRODUCT.md §7: the check accepts only the invitation whose id matches the pending-invitation cookie.
  // Read once: the cookie is cleared below when the invitation turns out to be gone.
  const [cookieMatches] = useState(() => parsePendingInvitation(Cookies.get(PENDING_INVITATION_COOKIE))?.invitationId === invitationId);

  const gone = !isLoading && !isError && cookieMatches && !invitation;
  useEffect(() => {
    // A revoked or expired invitation should not bring the user back here at every sign-in.
    if (!gone) return;
    Cookies.remove(PENDING_INVITATION_COOKIE, { path: '/' });
    forgetInvitationToken(invitationId);
  }, [gone, invitationId]);

  if (isLoading) return <Spinner label="Checking your invitation" />;
  if (isError || !cookieMatches) return <Alert>{INVITATION_MESSAGES.check}</Alert>;
  if (!invitation) return <NoInvitation email={email} />;
  return (
    <>
      <p>
        <strong>{invitation.inviterEmail}</strong> invited you to join <strong>{invitation.organizationName}</strong> as {invitation.role}.
      </p>
      <p className="muted">This invitation expires on {new Date(invitation.expiresAt).toLocaleDateString()}.</p>
      {error && <Alert>{error}</Alert>}
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        <Button type="button" busy={busy} onClick={() => acceptInvitation(invitationId, token)}>
          Accept invitation
        </Button>
        <Button type="button" variant="secondary" disabled={busy} onClick={() => rejectInvitation(invitationId, { leave: true, token })}>
          Decline
        </Button>
      </div>
    </>
  );
}

/**
 * Signed out: who invited whom to where, read with the link's secret. Without a secret that opens a
 * live invitation, exactly the page as it is for anyone: nothing about the invitation is said.
 */
function SignedOutInvitation({ invitationId }: { invitationId: string }) {
  const preview = useStoredInvitationPreview(invitationId);
  if (preview.isLoading) return <Spinner label="Checking your invitation" />;
  const invitation = preview.data;
  return (
    <>
      {invitation && (
        <p data-testid="invitation-preview">
          <strong>{invitation.inviterName}</strong> invited you to join <strong>{invitation.organizationName}</strong>.
        </p>
      )}
      <p>
        {invitation
          ? `Log in, or create an account with ${invitation.email}, to accept it.`
          : 'Log in, or create an account with the email address the invitation was sent to, to accept it.'}
      </p>
      <div className="actions" style={{ justifyContent: 'flex-start' }}>
        <Link className="button" href="/login">
          Log in
        </Link>
        <Link className="button button--secondary" href="/signUp">
          Create an account
        </Link>
      </div>
    </>
  );
}

/**
 * The link in an invitation email. It remembers the invitation in a cookie, and the link's secret in
 * this browser, so that a visitor who first has to sign in or sign up comes back here afterwards and
 * can still prove the email reached them.
 */
export default function AcceptInvitationPage() {
  const router = useRouter();
  const { query, isReady } = router;
  const dispatch = useAppDispatch();
  const rehydrated = useRehydrated();
  const user = useAppSelector(selectUser);
  const orgId = typeof query.orgId === 'string' ? query.orgId : '';
  const invitationId = typeof query.id === 'string' ? query.id : '';
  const linkToken = query[INVITATION_TOKEN_PARAM];

  useEffect(() => {
    // After rehydration, or the stored user read back from storage would overwrite it.
    if (!rehydrated || !isReady || !orgId || !invitationId) return;
    Cookies.set(PENDING_INVITATION_COOKIE, `${orgId}/${invitationId}`, {
      path: '/',
      sameSite: 'lax',
      expires: INVITATION_TTL_DAYS,
    });
    if (typeof linkToken === 'string') {
      if (INVITATION_TOKEN_PATTERN.test(linkToken)) rememberInvitationToken(invitationId, linkToken);
      // Kept out of the address bar and the history once stored.
      void router.replace(`/${encodeURIComponent(orgId)}/acceptInvitation/${encodeURIComponent(invitationId)}`, undefined, {
        shallow: true,
      });
    }
    dispatch(pendingInvitationStored(invitationId));
  }, [rehydrated, isReady, orgId, invitationId, linkToken, router, dispatch]);
  const remembered = Boolean(invitationId) && user.pendingInvitationId === invitationId && typeof linkToken !== 'string';

  return (
    <section className="card stack" style={{ maxWidth: 560, margin: '0 auto' }}>
      <Head>
        <title>Invitation · SignalBridge</title>
      </Head>
      <h1>You are invited</h1>
      {!rehydrated || !remembered ? (
        <Spinner label="Loading" />
      ) : user.isAuthenticated && user.email ? (
        <InvitationDecision invitationId={invitationId} email={user.email.toLowerCase()} token={invitationTokenFor(invitationId)} />
      ) : (
        <SignedOutInvitation invitationId={invitationId} />
      )}
    </section>
  );
}
