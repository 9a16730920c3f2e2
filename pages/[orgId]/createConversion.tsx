import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'New conversion',
  'Here you will pick a conversion source and the ad platform to send its conversions to.',
);
