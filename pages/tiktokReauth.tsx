import { oauthReturnPage } from '@/components/integrations/OAuthReturnPage';

export default oauthReturnPage('Reconnecting TikTok');
