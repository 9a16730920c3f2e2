import { CheckoutFailurePage } from '@/components/billing/CheckoutResultPage';

export default CheckoutFailurePage;
