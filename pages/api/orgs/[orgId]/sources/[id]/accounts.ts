import { accountsRoutes } from '@/lib/server/routes/integrations';

export default accountsRoutes('source');
