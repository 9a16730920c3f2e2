import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Meta Ads source', 'The Meta ad accounts this source reads will be chosen here.');
