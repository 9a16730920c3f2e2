import { ConversionsPage } from '@/components/conversions/ConversionsPage';

export default ConversionsPage;
