import { oauthReturnPage } from '@/components/integrations/OAuthReturnPage';

export default oauthReturnPage('Finishing your destination');
