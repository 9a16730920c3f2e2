import { oauthStartPage } from '@/components/integrations/OAuthStartPage';

export default oauthStartPage('microsoft_ads');
