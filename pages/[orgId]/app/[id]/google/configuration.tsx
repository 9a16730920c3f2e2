import { appPlatformPage } from '@/components/apps/AppRoutingPages';

export default appPlatformPage('google_ads');
