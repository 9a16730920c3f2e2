import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Connection configuration',
  "This connection's schedule, fields and backfill will be set here.",
);
