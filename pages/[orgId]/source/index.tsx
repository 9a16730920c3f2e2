import { integrationsPage } from '@/components/integrations/IntegrationsPage';

export default integrationsPage('source');
