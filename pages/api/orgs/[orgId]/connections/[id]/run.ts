import { runRoutes } from '@/lib/server/routes/connections';

/** POST starts a run now ("Run now"); 409 while one is in progress. */
export default runRoutes;
