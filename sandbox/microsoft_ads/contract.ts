import { randomBytes, randomUUID } from 'node:crypto';
import type { ContractCase } from '@/sandbox/contract';

/** Microsoft Advertising's ApplyOfflineConversions, as Microsoft documents it (docs/PLATFORMS.md, docs/MATCH_KEYS.md). */
export const microsoftAdsContract: ContractCase = {
  platform: 'microsoft_ads',
  provider: 'microsoft',
  received: 'microsoft',
  version: 'microsoftAds',
  versionOf: (url) => /^\/microsoft\/\w+\/\w+\/(v\d+)\//.exec(url.pathname)?.[1] ?? null,
  maxEvents: {
    count: 1000,
    source:
      'https://learn.microsoft.com/en-us/advertising/campaign-management-service/applyofflineconversions (at most 1,000 offline conversions)',
  },
  event: (serial, user) => ({
    id: `contract-${randomUUID()}`,
    name: 'Purchase',
    time: Math.floor(Date.now() / 1000) - 3600,
    value: 10 + serial,
    currency: 'USD',
    user,
    clickIds: { msclkid: randomBytes(16).toString('hex') },
    context: { actionSource: 'system_generated' },
  }),
  keyPartOf: (event) => event.clickIds.msclkid!,
  identifiersOf: ({ event }) => ({
    email: typeof event.HashedEmailAddress === 'string' ? event.HashedEmailAddress : null,
    phone: typeof event.HashedPhoneNumber === 'string' ? event.HashedPhoneNumber : null,
  }),
  form: {
    email: (raw) => raw.trim().toLowerCase(),
    phone: (e164) => e164,
    source:
      'https://learn.microsoft.com/en-us/advertising/campaign-management-service/offlineconversion (HashedEmailAddress, HashedPhoneNumber)',
  },
};
