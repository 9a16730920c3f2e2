import { CreateConversionPage } from '@/components/conversions/CreateConversionPage';

export default CreateConversionPage;
