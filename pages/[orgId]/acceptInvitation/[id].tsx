import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Invitation',
  'Here you will accept or decline an invitation to join this organization.',
  'topNavbar',
);
