import { CreateConnectionPage } from '@/components/connections/CreateConnectionPage';

export default CreateConnectionPage;
