import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Microsoft Advertising source',
  'The Microsoft Advertising accounts this source reads will be chosen here.',
);
