import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Subscription not completed',
  'What went wrong with your checkout, and how to try again, will be shown here.',
);
