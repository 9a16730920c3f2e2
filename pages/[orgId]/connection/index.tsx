import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Connections',
  'Connections that move ad data from a source to a destination will be listed here.',
);
