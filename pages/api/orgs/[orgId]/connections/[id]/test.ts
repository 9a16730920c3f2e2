import { testRoutes } from '@/lib/server/routes/connections';

/** POST reads the last 7 days of one account and checks the destination, writing nothing. */
export default testRoutes;
