import { oauthStartPage } from '@/components/integrations/OAuthStartPage';

export default oauthStartPage('google_ads');
