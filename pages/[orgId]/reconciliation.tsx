import { ReconciliationPage } from '@/components/reconciliation/ReconciliationPage';

export default ReconciliationPage;
