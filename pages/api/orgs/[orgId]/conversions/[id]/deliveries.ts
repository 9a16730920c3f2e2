import { deliveriesRoutes } from '@/lib/server/routes/conversions';

/** GET the conversion's delivery log: the latest platform calls, or those holding ?eventId=. */
export default deliveriesRoutes;
