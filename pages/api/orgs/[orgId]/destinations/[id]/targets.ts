import { targetsRoutes } from '@/lib/server/routes/integrations';

export default targetsRoutes;
