import { startRoutes } from '@/lib/server/routes/oauth';

export default startRoutes;
