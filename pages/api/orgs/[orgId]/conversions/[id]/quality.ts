import { qualityRoutes } from '@/lib/server/routes/conversions';

/** GET the conversion's match quality: `{ platform, keys, day, week, advice, platformMeasure }`. */
export default qualityRoutes;
