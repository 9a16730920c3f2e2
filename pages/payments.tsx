import { plannedPage } from '@/components/PlannedPage';

export default plannedPage(
  'Connecting Stripe',
  'Here a Stripe account connection finishes and continues to its configuration.',
);
