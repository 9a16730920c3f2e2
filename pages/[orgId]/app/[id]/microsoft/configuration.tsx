import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Microsoft Advertising configuration',
  "Here you will choose the Microsoft Advertising conversion goal for this app's conversions.",
);
