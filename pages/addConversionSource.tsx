import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Finishing your conversion source',
  'The platform sends you back here after you allow access, and the new conversion source is created.',
);
