import type { GetServerSideProps } from 'next';
import { integrationConfigurationPage } from '@/components/integrations/IntegrationConfigurationPage';
import { platformOfSegment } from '@/lib/shared/integrations/platforms';

/** A source page of an ad platform beyond the spec (the spec's google, meta and microsoft segments have their own page files, which Next.js prefers); any other segment is a 404. */
export const getServerSideProps: GetServerSideProps = async ({ params }) =>
  platformOfSegment(params?.segment) ? { props: {} } : { notFound: true };

export default integrationConfigurationPage('source');
