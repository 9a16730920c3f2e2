import { integrationConfigurationPage } from '@/components/integrations/IntegrationConfigurationPage';

export default integrationConfigurationPage('source');
