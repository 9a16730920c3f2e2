import { PaymentConfigurationPage } from '@/components/integrations/PaymentsPage';

export default PaymentConfigurationPage;
