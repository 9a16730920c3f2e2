import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Subscription', "You will be taken to your organization's subscription page.", 'topNavbar');
