import { ConversionConfigurationPage } from '@/components/conversions/ConversionConfigurationPage';

export default ConversionConfigurationPage;
