import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Payments', 'The Stripe accounts whose payments count as conversions will be listed here.');
