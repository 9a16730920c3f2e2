import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Reconnecting Meta',
  'Meta sends you back here after you reconnect an account whose access expired.',
);
