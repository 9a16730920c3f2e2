import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Conversion configuration',
  "This conversion flow's source, destination and field mapping will be set here.",
);
