import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'App',
  "This app's tag manager container, payload URLs and conversion destinations will be shown here.",
);
