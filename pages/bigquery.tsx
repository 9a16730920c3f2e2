import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Finishing your BigQuery connection',
  'Google sends you back here after you allow BigQuery access, and the connection is created.',
);
