import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Finishing your destination',
  'The platform sends you back here after you allow access, and the new destination is created.',
);
