import type { GetServerSideProps } from 'next';
import { AppPlatformPage } from '@/components/apps/AppRoutingPages';
import { platformOfSegment, type AdPlatform } from '@/lib/shared/integrations/platforms';

/** An app's routing page for an ad platform beyond the spec (the spec's google, meta and microsoft segments have their own page files, which Next.js prefers); any other segment is a 404. */
export const getServerSideProps: GetServerSideProps<{ platform: AdPlatform }> = async ({ params }) => {
  const platform = platformOfSegment(params?.segment);
  return platform ? { props: { platform } } : { notFound: true };
};

export default AppPlatformPage;
