import { itemRoutes } from '@/lib/server/routes/integrations';

export default itemRoutes('source');
