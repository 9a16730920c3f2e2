import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Google Ads source', 'The Google Ads accounts this source reads will be chosen here.');
