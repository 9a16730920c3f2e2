import { ConnectAppPage } from '@/components/apps/AppsPages';

export default ConnectAppPage;
