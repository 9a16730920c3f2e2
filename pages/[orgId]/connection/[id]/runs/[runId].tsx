import { RunDetailPage } from '@/components/connections/RunDetailPage';

export default RunDetailPage;
