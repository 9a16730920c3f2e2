import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Conversions',
  'Conversion flows that send your first-party conversions to the ad platforms will be listed here.',
);
