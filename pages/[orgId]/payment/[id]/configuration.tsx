import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Payment configuration', "This Stripe account's settings will be shown here.");
