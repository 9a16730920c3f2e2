import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Create your organization',
  'Here you will name your organization and add its logo to get started.',
  'topNavbar',
);
