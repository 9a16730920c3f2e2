import { useState, type FormEvent } from 'react';
import { failureMessage } from '@/components/team/failure';
import Button from '@/components/ui/Button';
import Notice, { type NoticeValue } from '@/components/ui/Notice';
import TextField from '@/components/ui/TextField';
import { canAssignRole, type Role } from '@/lib/shared/permissions';
import { EMAIL_MAX_LENGTH, INVITATION_MESSAGES, INVITATION_TTL_DAYS } from '@/lib/shared/team';
import { useSendInvitationMutation, type ApiFailure } from '@/store/api';

interface Props {
  orgId: string;
  organizationName: string;
  role: Role;
  inviter: { uid: string; email: string };
}

export default function InviteForm({ orgId, organizationName, role, inviter }: Props) {
  const [email, setEmail] = useState('');
  const [invitedRole, setInvitedRole] = useState<'member' | 'admin'>('member');
  const [notice, setNotice] = useState<NoticeValue | null>(null);
  const [emailError, setEmailError] = useState<string | undefined>();
  const [send, { isLoading }] = useSendInvitationMutation();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice(null);
    setEmailError(undefined);
    const result = await send({
      email,
      organization_id: orgId,
      inviter_user_id: inviter.uid,
      organization: organizationName,
      inviter_email: inviter.email,
      role: invitedRole,
    });
    if ('error' in result) {
      // The handler's schema is the one rule (the page ships no zod): its message goes under the field.
      const fieldError = (result.error as Partial<ApiFailure>).fieldErrors?.email?.[0];
      if (fieldError) return setEmailError(fieldError);
      setNotice({ ok: false, text: failureMessage(INVITATION_MESSAGES.send, result.error) });
      return;
    }
    setNotice(
      result.data.emailSent
        ? { ok: true, text: `Invitation sent to ${email}. The link is valid for ${INVITATION_TTL_DAYS} days.` }
        : { ok: false, text: `The invitation to ${email} is created, but the email could not be sent. Resend it below.` },
    );
    setEmail('');
  }

  return (
    <section className="section" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a teammate</h2>
      <Notice notice={notice} />
      <form className="inline-form" onSubmit={submit} aria-labelledby="invite-title">
        <TextField
          label="Email address"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          maxLength={EMAIL_MAX_LENGTH}
          error={emailError}
          required
        />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={invitedRole} onChange={(e) => setInvitedRole(e.target.value as 'member' | 'admin')}>
            <option value="member">member</option>
            {canAssignRole(role, 'admin') && <option value="admin">admin</option>}
          </select>
        </div>
        <Button type="submit" busy={isLoading}>
          Send invitation
        </Button>
      </form>
    </section>
  );
}
