import { connectionsRoutes } from '@/lib/server/routes/connections';

/** GET lists the organization's connections; POST creates one (its first run is due at once). */
export default connectionsRoutes;
