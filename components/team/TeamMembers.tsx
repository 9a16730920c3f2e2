import { useRouter } from 'next/router';
import { useState } from 'react';
import { failureMessage } from '@/components/team/failure';
import Alert from '@/components/ui/Alert';
import Button from '@/components/ui/Button';
import ConfirmDialog from '@/components/ui/ConfirmDialog';
import Spinner from '@/components/ui/Spinner';
import TableHead from '@/components/ui/TableHead';
import { canAssignRole, canManageMember, ORGANIZATION_ROLES, type OrganizationRole, type Role } from '@/lib/shared/permissions';
import { INVITATION_MESSAGES, LAST_OWNER_MESSAGE, type TeamMember } from '@/lib/shared/team';
import { useChangeRoleMutation, useRemoveMemberMutation, useTeamMembersQuery } from '@/store/api';

type Pending = { kind: 'remove'; member: TeamMember } | { kind: 'role'; member: TeamMember; role: OrganizationRole };

const formatDate = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString() : '—');

/** The team; owners and admins change roles and remove people below or at their rank, anyone may leave. */
export default function TeamMembers({ orgId, role, uid }: { orgId: string; role: Role; uid: string }) {
  const router = useRouter();
  // A failed team-member fetch shows an empty list (docs/PRODUCT.md §7), with a note.
  const { data: members = [], isLoading, isError } = useTeamMembersQuery(orgId);
  const [removeMember, removal] = useRemoveMemberMutation();
  const [changeRole, roleChange] = useChangeRoleMutation();
  const [pending, setPending] = useState<Pending | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function confirm() {
    if (!pending) return;
    setError(null);
    const { member } = pending;
    if (pending.kind === 'remove') {
      const result = await removeMember({ organizationId: orgId, memberId: member.uid });
      if ('error' in result) setError(failureMessage(INVITATION_MESSAGES.remove, result.error));
      else if (member.uid === uid) await router.push('/organizations');
    } else {
      const result = await changeRole({ orgId, memberId: member.uid, role: pending.role });
      if ('error' in result) setError(failureMessage('Could not change the role.', result.error));
    }
    setPending(null);
  }

  const assignable = ORGANIZATION_ROLES.filter((option) => canAssignRole(role, option));
  // The only owner may not leave (the server refuses it): the dialog says so before, and cannot be confirmed.
  const onlyOwner = role === 'owner' && members.filter((member) => member.role === 'owner').length === 1;
  const leaving = pending?.kind === 'remove' && pending.member.uid === uid;
  const refused = leaving && onlyOwner;
  return (
    <section className="section" aria-labelledby="members-title">
      <h2 id="members-title">Team members</h2>
      {error && <Alert>{error}</Alert>}
      {isError && <p className="muted">We could not load the team right now.</p>}
      {isLoading ? (
        <Spinner label="Loading team members" />
      ) : (
        <table className="table table--cards" aria-label="Team members">
          <TableHead columns={['Name', 'Email', 'Role', 'Joined']} />
          <tbody>
            {members.map((member) => {
              const manageable = member.uid !== uid && canManageMember(role, member.role);
              return (
                <tr key={member.uid}>
                  <td>{member.name || '—'}</td>
                  <td data-label="Email">{member.email}</td>
                  <td data-label="Role">
                    {manageable && assignable.length > 1 ? (
                      <select
                        aria-label={`Role of ${member.email}`}
                        value={member.role}
                        onChange={(e) => setPending({ kind: 'role', member, role: e.target.value as OrganizationRole })}
                      >
                        {assignable.map((option) => (
                          <option key={option} value={option}>
                            {option}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <span className="badge">{member.role}</span>
                    )}
                  </td>
                  <td data-label="Joined">{formatDate(member.joinedAt)}</td>
                  <td className="actions">
                    {(manageable || member.uid === uid) && (
                      <Button
                        type="button"
                        variant="secondary"
                        className="button--small"
                        onClick={() => setPending({ kind: 'remove', member })}
                      >
                        {member.uid === uid ? 'Leave' : 'Remove'}
                      </Button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={pending !== null}
        title={
          pending?.kind === 'role'
            ? 'Change role?'
            : refused
              ? 'You are the only owner'
              : leaving
                ? 'Leave this organization?'
                : 'Remove this member?'
        }
        confirmLabel={pending?.kind === 'role' ? 'Change role' : leaving ? 'Leave' : 'Remove'}
        confirmDisabled={refused}
        busy={removal.isLoading || roleChange.isLoading}
        onConfirm={confirm}
        onCancel={() => setPending(null)}
      >
        {pending?.kind === 'role'
          ? `${pending.member.email} will become ${pending.role}.`
          : refused
            ? `${LAST_OWNER_MESSAGE} ${members.length > 1 ? 'Give a teammate the owner role in this list' : 'Invite a teammate, then give them the owner role'}, and leave after.`
            : leaving
              ? 'You will lose access to this organization at once.'
              : `${pending?.member.email} will lose access to this organization at once.`}
      </ConfirmDialog>
    </section>
  );
}
