import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Connect an app',
  'Here you will add a website or product whose conversions you want to track.',
);
