import { readRoutes } from '@/lib/server/routes/conversions';

/** POST makes a BigQuery or Mixpanel conversion's next read due now (Read now). */
export default readRoutes;
