import { ConnectionsPage } from '@/components/connections/ConnectionsPage';

export default ConnectionsPage;
