import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Apps', 'Websites and products whose conversions you track will be listed here.');
