import { PaymentsPage } from '@/components/integrations/PaymentsPage';

export default PaymentsPage;
