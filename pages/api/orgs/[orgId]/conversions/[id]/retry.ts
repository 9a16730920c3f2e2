import { retryRoutes } from '@/lib/server/routes/conversions';

/** POST sends the conversion's failed events again. */
export default retryRoutes;
