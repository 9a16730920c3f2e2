import { AppsPage } from '@/components/apps/AppsPages';

export default AppsPage;
