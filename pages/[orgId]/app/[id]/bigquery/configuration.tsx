import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'BigQuery configuration',
  "Here you will choose where this app's conversions land in BigQuery.",
);
