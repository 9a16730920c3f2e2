import type { GetServerSideProps } from 'next';
import { integrationConfigurationPage } from '@/components/integrations/IntegrationConfigurationPage';
import { platformOfSegment } from '@/lib/shared/integrations/platforms';

/** /{orgId}/source/{id}/{google|meta|microsoft}/configuration: one page for every ad platform's segment (CATALOGUE); any other segment is a 404. */
export const getServerSideProps: GetServerSideProps = async ({ params }) =>
  platformOfSegment(params?.segment) ? { props: {} } : { notFound: true };

export default integrationConfigurationPage('source');
