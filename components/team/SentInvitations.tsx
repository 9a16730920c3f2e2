import { useState } from 'react';
import { failureMessage } from '@/components/team/failure';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { can, type Role } from '@/lib/shared/permissions';
import { INVITATION_MESSAGES, type SentInvitation } from '@/lib/shared/team';
import { useResendInvitationMutation, useRevokeInvitationMutation, useSentInvitationsQuery } from '@/store/api';

/** Invitations with their status and expiry; owners and admins resend or revoke pending ones. */
export default function SentInvitations({ orgId, role }: { orgId: string; role: Role }) {
  const { data: invitations = [], isLoading, isError, error: loadError } = useSentInvitationsQuery(orgId);
  const [resend, resending] = useResendInvitationMutation();
  const [revoke, revoking] = useRevokeInvitationMutation();
  const [revokingInvitation, setRevokingInvitation] = useState<SentInvitation | null>(null);
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const manage = can(role, 'invitation', 'update');

  async function resendOne(invitation: SentInvitation) {
    const result = await resend({ orgId, invitationId: invitation.id });
    if ('error' in result) setNotice({ ok: false, text: failureMessage(INVITATION_MESSAGES.send, result.error) });
    else if (!result.data.emailSent)
      setNotice({ ok: false, text: `The invitation to ${invitation.email} is renewed, but the email could not be sent.` });
    else setNotice({ ok: true, text: `Invitation sent again to ${invitation.email}. It is valid for 7 more days.` });
  }

  async function confirmRevoke() {
    if (!revokingInvitation) return;
    const result = await revoke({ orgId, invitationId: revokingInvitation.id });
    setNotice('error' in result ? { ok: false, text: failureMessage('Could not revoke the invitation.', result.error) } : null);
    setRevokingInvitation(null);
  }

  return (
    <section className="section" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <Notice notice={notice} />
      {isError && <Alert>{failureMessage(INVITATION_MESSAGES.sent, loadError)}</Alert>}
      {isLoading ? (
        <Spinner label="Loading invitations" />
      ) : invitations.length === 0 ? (
        <p className="muted">No invitations yet.</p>
      ) : (
        <table className="table table--cards" aria-label="Invitations">
          <TableHead columns={['Email', 'Role', 'Status', 'Expires']} />
          <tbody>
            {invitations.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td data-label="Role">{invitation.role}</td>
                <td data-label="Status">
                  <span className={`badge badge--${invitation.status}`}>{invitation.status}</span>
                </td>
                <td data-label="Expires">{invitation.status === 'pending' ? new Date(invitation.expiresAt).toLocaleDateString() : '—'}</td>
                <td className="actions">
                  {manage && (invitation.status === 'pending' || invitation.status === 'expired') && (
                    <Button
                      type="button"
                      variant="secondary"
                      className="button--small"
                      busy={resending.isLoading && resending.originalArgs?.invitationId === invitation.id}
                      onClick={() => resendOne(invitation)}
                    >
                      Resend
                    </Button>
                  )}
                  {manage && invitation.status === 'pending' && (
                    <Button type="button" variant="secondary" className="button--small" onClick={() => setRevokingInvitation(invitation)}>
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={revokingInvitation !== null}
        title="Revoke this invitation?"
        confirmLabel="Revoke"
        busy={revoking.isLoading}
        onConfirm={confirmRevoke}
        onCancel={() => setRevokingInvitation(null)}
      >
        The link sent to {revokingInvitation?.email} will stop working.
      </ConfirmDialog>
    </section>
  );
}
