import { ConnectionTestPage } from '@/components/connections/ConnectionTestPage';

export default ConnectionTestPage;
