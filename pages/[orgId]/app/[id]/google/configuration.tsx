import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Google Ads configuration',
  "Here you will choose the Google Ads conversion action for this app's conversions.",
);
