import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Subscription confirmed', 'Confirmation of your new subscription will be shown here.');
