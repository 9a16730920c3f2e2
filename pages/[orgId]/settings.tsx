import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Settings',
  "Your organization's name, logo, team members and invitations will be managed here.",
);
