import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Connecting Google Ads',
  "This page sends you to Google's consent screen to connect Google Ads.",
  'empty',
);
