import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Create your account', 'Registration with email and password or Google will be here.');
