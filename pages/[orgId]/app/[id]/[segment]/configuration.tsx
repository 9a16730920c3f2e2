import type { GetServerSideProps } from 'next';
import { AppPlatformPage } from '@/components/apps/AppRoutingPages';
import { platformOfSegment, type AdPlatform } from '@/lib/shared/integrations/platforms';

/** /{orgId}/app/{id}/{google|meta|microsoft}/configuration: one page for every ad platform's segment (CATALOGUE); any other segment is a 404. */
export const getServerSideProps: GetServerSideProps<{ platform: AdPlatform }> = async ({ params }) => {
  const platform = platformOfSegment(params?.segment);
  return platform ? { props: { platform } } : { notFound: true };
};

export default AppPlatformPage;
