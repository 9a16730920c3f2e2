import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Destination configuration', "This destination's account and settings will be shown here.");
