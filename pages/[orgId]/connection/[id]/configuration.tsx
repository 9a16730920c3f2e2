import { ConnectionConfigurationPage } from '@/components/connections/ConnectionConfigurationPage';

export default ConnectionConfigurationPage;
