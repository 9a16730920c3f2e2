import { conversionsRoutes } from '@/lib/server/routes/conversions';

/** GET lists the organization's conversions (with the last 24 hours); POST creates one. */
export default conversionsRoutes;
