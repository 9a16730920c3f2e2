import Cookies from 'js-cookie';
import Link from 'next/link';
import { useState } from 'react';
import AuthCard from '@/components/auth/AuthCard';
import CredentialFields from '@/components/auth/CredentialFields';
import { useAuthSubmit } from '@/components/auth/useAuthSubmit';
import { useStoredInvitationPreview } from '@/components/team/invitationLink';
import TextField from '@/components/ui/TextField';
import { loadAuthFlows } from '@/lib/client/auth/lazyFlows';
import { PENDING_INVITATION_COOKIE, parsePendingInvitation } from '@/lib/shared/navigation';
import { useAppDispatch } from '@/store/hooks';
import { userSignedIn } from '@/store/userSlice';

/** The invitation this browser came through (the pending-invitation cookie), read with the link's secret: its email and organization. */
function usePendingInvitationPreview() {
  const [invitationId] = useState(() => parsePendingInvitation(Cookies.get(PENDING_INVITATION_COOKIE))?.invitationId);
  return useStoredInvitationPreview(invitationId).data;
}

/**
 * Registration: no client-side field checks, only what the provider says (docs/PRODUCT.md §7). Coming
 * from an invitation link, the invited email is filled in. The new user stays signed in; the route guard
 * takes them on (to the invitation, if there is one).
 */
export default function SignUpForm() {
  const dispatch = useAppDispatch();
  const [fullName, setFullName] = useState('');
  // null until the user types: meanwhile the invited email (once known) fills the field, never over their typing.
  const [typedEmail, setEmail] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const invitation = usePendingInvitationPreview();
  const email = typedEmail ?? invitation?.email ?? '';
  const { error, setError, busy, onSubmit } = useAuthSubmit(async () => {
    const { registerWithEmail } = await loadAuthFlows();
    dispatch(userSignedIn(await registerWithEmail(fullName.trim(), email, password)));
  });

  return (
    <AuthCard
      title="Create your account"
      error={error}
      onSubmit={onSubmit}
      footer={
        <span>
          Already have an account? <Link href="/login">Log in</Link>
        </span>
      }
    >
      <TextField label="Full name" name="name" autoComplete="name" value={fullName} onChange={(e) => setFullName(e.target.value)} />
      <CredentialFields
        email={email}
        password={password}
        onEmailChange={setEmail}
        onPasswordChange={setPassword}
        passwordAutoComplete="new-password"
        submitLabel="Create account"
        busy={busy}
        onGoogleError={setError}
      />
    </AuthCard>
  );
}
