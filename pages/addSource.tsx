import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Finishing your source',
  'The ad platform sends you back here after you allow access, and the new source is created.',
);
