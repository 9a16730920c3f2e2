import { cancelRoutes } from '@/lib/server/routes/oauth';

export default cancelRoutes;
