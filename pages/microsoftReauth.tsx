import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Reconnecting Microsoft Advertising',
  'Microsoft sends you back here after you reconnect an account whose access expired.',
);
