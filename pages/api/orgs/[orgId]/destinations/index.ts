import { collectionRoutes } from '@/lib/server/routes/integrations';

export default collectionRoutes('destination');
