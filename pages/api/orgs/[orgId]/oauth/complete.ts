import { completeRoutes } from '@/lib/server/routes/oauth';

export default completeRoutes;
