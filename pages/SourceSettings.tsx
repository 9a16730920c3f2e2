import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Choose ad accounts', 'Here you will pick which ad accounts of a connected login to use.');
