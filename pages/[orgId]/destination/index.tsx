import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Destinations',
  'The analytics tools and warehouses your ad data flows into will be listed here.',
);
