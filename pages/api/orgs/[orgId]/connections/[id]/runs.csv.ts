import { runsCsvRoutes } from '@/lib/server/routes/connections';

/** GET the run history as CSV (newest first, up to 1,000 runs). */
export default runsCsvRoutes;
