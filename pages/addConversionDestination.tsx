import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Finishing your conversion destination',
  'The ad platform sends you back here after you allow access, and the new conversion destination is created.',
);
