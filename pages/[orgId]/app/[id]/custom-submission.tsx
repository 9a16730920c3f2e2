import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Custom submission',
  "This app's endpoint and key for posting form submissions will be shown here.",
);
