import { CheckoutSuccessPage } from '@/components/billing/CheckoutResultPage';

export default CheckoutSuccessPage;
