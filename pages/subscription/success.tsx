import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Subscription confirmed',
  "You will be taken to your organization's subscription confirmation.",
);
