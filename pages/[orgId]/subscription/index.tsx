import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Subscription', "Your organization's plan and billing will be managed here.", 'topNavbar');
