import { runDetailRoutes } from '@/lib/server/routes/connections';

/** GET one run of a connection: per account rows, calls, time and error, and its jobs. */
export default runDetailRoutes;
