import type { GetServerSideProps } from 'next';
import OAuthStartPage, { type OAuthStartProps } from '@/components/integrations/OAuthStartPage';
import { platformOfStartRoute } from '@/lib/shared/integrations/platforms';

/** The consent start route of a platform beyond the spec (the spec's GoogleAds, MetaAds and MicrosoftAds have their own page files, which Next.js prefers); any other path is a 404. */
export const getServerSideProps: GetServerSideProps<OAuthStartProps> = async ({ params }) => {
  const platform = platformOfStartRoute(params?.startRoute);
  return platform ? { props: { defaultPlatform: platform } } : { notFound: true };
};

export default OAuthStartPage;
