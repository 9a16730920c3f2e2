import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Test connection',
  'A dry run of this connection, showing what it would write, will run here.',
);
