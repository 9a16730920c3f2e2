import { useInvitationResponse } from '@/components/team/useInvitationResponse';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import { INVITATION_MESSAGES } from '@/lib/shared/team';
import { usePendingInvitationsQuery } from '@/store/api';

/** Invitations waiting for the signed-in email, shown above the organization list. */
export default function PendingInvitations({ email }: { email: string }) {
  const { data: invitations = [], isError } = usePendingInvitationsQuery(email);
  const { acceptInvitation, rejectInvitation, error, busy } = useInvitationResponse();
  if (isError) return <Alert>{INVITATION_MESSAGES.pending}</Alert>;
  if (invitations.length === 0) return null;
  return (
    <section className="section" aria-labelledby="pending-title">
      <h2 id="pending-title">Invitations for you</h2>
      {error && <Alert>{error}</Alert>}
      <ul className="org-list" aria-label="Invitations for you">
        {invitations.map((invitation) => (
          <li key={invitation.id} className="card stack" style={{ padding: '1rem' }}>
            <span>
              <strong>{invitation.organizationName}</strong>
              <br />
              <span className="muted">
                from {invitation.inviterEmail}, as {invitation.role}
              </span>
            </span>
            <div className="actions" style={{ justifyContent: 'flex-start' }}>
              <Button type="button" className="button--small" busy={busy} onClick={() => acceptInvitation(invitation.id)}>
                Accept
              </Button>
              <Button
                type="button"
                variant="secondary"
                className="button--small"
                disabled={busy}
                onClick={() => rejectInvitation(invitation.id, { leave: false })}
              >
                Decline
              </Button>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
