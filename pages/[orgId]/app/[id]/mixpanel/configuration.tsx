import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Mixpanel configuration',
  "Here you will choose the Mixpanel project for this app's conversions.",
);
