import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Sources', 'The ad accounts your data comes from will be listed here.');
