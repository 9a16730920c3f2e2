import { backfillRoutes } from '@/lib/server/routes/connections';

/** POST starts a historical backfill from a day; DELETE cancels the one in progress. */
export default backfillRoutes;
