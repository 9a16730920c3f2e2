import { appPlatformPage } from '@/components/apps/AppRoutingPages';

export default appPlatformPage('microsoft_ads');
