import { useEmailVerification } from '@/components/auth/useEmailVerification';
import VerifyEmailNotice from '@/components/auth/VerifyEmailNotice';
import PendingInvitations from '@/components/team/PendingInvitations';
import { useAppSelector } from '@/store/hooks';
import { selectUser } from '@/store/userSlice';

/**
 * Invitations waiting for the signed-in email (accept / decline). An unverified email sees none — anyone
 * can type an address — so it is asked to verify first.
 */
export default function InvitationsForYou() {
  const { email } = useAppSelector(selectUser);
  const verification = useEmailVerification();
  if (!email || verification.status === 'checking') return null;
  if (verification.status === 'unverified') return <VerifyEmailNotice email={email} verification={verification} />;
  return <PendingInvitations email={email.toLowerCase()} />;
}
