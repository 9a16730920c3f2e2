import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('New connection', 'Here you will pick a source and a destination to move ad data between.');
