import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Reset your password', 'Here you will ask for a link to set a new password.');
