import { previewRoutes } from '@/lib/server/routes/conversions';

/** POST { source } answers the first 20 rows of a BigQuery or Mixpanel source, mapped as they will be sent. */
export default previewRoutes;
