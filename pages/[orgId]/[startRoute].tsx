import type { GetServerSideProps } from 'next';
import OAuthStartPage, { type OAuthStartProps } from '@/components/integrations/OAuthStartPage';
import { platformOfStartRoute } from '@/lib/shared/integrations/platforms';

/** /{orgId}/GoogleAds, /MetaAds, /MicrosoftAds: one page for every consent's start route (CATALOGUE); any other path is a 404. */
export const getServerSideProps: GetServerSideProps<OAuthStartProps> = async ({ params }) => {
  const platform = platformOfStartRoute(params?.startRoute);
  return platform ? { props: { defaultPlatform: platform } } : { notFound: true };
};

export default OAuthStartPage;
