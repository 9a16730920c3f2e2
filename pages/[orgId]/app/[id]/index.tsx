import { AppPage } from '@/components/apps/AppsPages';

export default AppPage;
