import { deliveryRowRoutes } from '@/lib/server/routes/conversions';

/** GET one row of a delivery record: its outcome, the payload sent for it and the platform's answer. */
export default deliveryRowRoutes;
