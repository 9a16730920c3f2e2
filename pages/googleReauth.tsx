import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Reconnecting Google',
  'Google sends you back here after you reconnect an account whose access expired.',
);
