import { plannedPage } from '@/components/PlannedPage';

export default plannedPage('Meta configuration', "Here you will choose the Meta pixel for this app's conversions.");
