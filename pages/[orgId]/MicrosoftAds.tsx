import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Connecting Microsoft Advertising',
  "This page sends you to Microsoft's consent screen to connect Microsoft Advertising.",
  'empty',
);
