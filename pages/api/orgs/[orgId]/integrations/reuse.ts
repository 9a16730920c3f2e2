import { reuseRoutes } from '@/lib/server/routes/integrations';

export default reuseRoutes;
