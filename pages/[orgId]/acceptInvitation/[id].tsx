import AcceptInvitationPage from '@/components/team/AcceptInvitationPage';
import { layouts } from '@/layouts/index';

export default function AcceptInvitation() {
  return <AcceptInvitationPage />;
}

AcceptInvitation.getLayout = layouts.topNavbar;
