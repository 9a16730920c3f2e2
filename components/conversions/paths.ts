import { isAdPlatform, type AdPlatform, type Integration } from '@/lib/shared/integrations/platforms';

/** The conversion pages' routes, apart from `shared.tsx` so a page needing only these does not load its badges and words. */
const org = (orgId: string) => `/${encodeURIComponent(orgId)}`;
export const conversionsPath = (orgId: string) => `${org(orgId)}/conversion`;
export const createConversionPath = (orgId: string) => `${org(orgId)}/createConversion`;
export const conversionPath = (orgId: string, id: string) => `${org(orgId)}/conversion/${encodeURIComponent(id)}/configuration`;
export const destinationPath = (orgId: string, id: string) => `${org(orgId)}/destination/${encodeURIComponent(id)}/configuration`;

/** A destination on an ad platform: what a conversion sends to. */
export const isAdDestination = (integration: Integration): integration is Integration & { platform: AdPlatform } =>
  isAdPlatform(integration.platform);
