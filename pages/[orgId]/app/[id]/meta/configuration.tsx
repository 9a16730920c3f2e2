import { appPlatformPage } from '@/components/apps/AppRoutingPages';

export default appPlatformPage('meta_ads');
