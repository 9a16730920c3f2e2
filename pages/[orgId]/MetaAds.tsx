import { oauthStartPage } from '@/components/integrations/OAuthStartPage';

export default oauthStartPage('meta_ads');
