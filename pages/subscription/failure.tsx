import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Subscription not completed',
  "You will be taken to your organization's subscription page to try again.",
);
