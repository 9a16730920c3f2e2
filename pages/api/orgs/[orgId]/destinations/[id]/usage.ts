import { usageRoutes } from '@/lib/server/routes/integrations';

export default usageRoutes('destination');
