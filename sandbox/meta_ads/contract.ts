import { randomUUID } from 'node:crypto';
import type { ContractCase } from '@/sandbox/contract';

/** Meta's Conversions API, as Meta documents it (docs/PLATFORMS.md, docs/MATCH_KEYS.md). */
export const metaAdsContract: ContractCase = {
  platform: 'meta_ads',
  provider: 'meta',
  received: 'meta',
  version: 'meta',
  versionOf: (url) => /^\/meta\/graph\/(v\d+\.\d+)\//.exec(url.pathname)?.[1] ?? null,
  maxEvents: {
    count: 1000,
    source: 'https://developers.facebook.com/docs/marketing-api/conversions-api/using-the-api (up to 1,000 events)',
  },
  event: (serial, user) => ({
    id: `contract-${randomUUID()}`,
    name: 'Purchase',
    time: Math.floor(Date.now() / 1000) - 3600,
    value: 10 + serial,
    currency: 'USD',
    user,
    clickIds: { fbc: `fb.1.1700000000000.contract${serial}` },
    context: {
      actionSource: 'website',
      ip: '203.0.113.7',
      userAgent: 'Mozilla/5.0 (contract)',
      pageUrl: 'https://shop.example.com/thanks',
    },
  }),
  keyPartOf: (event) => event.id,
  identifiersOf: ({ event }) => {
    const user = (event.user_data ?? {}) as { em?: string[]; ph?: string[] };
    return { email: user.em?.[0] ?? null, phone: user.ph?.[0] ?? null };
  },
  form: {
    email: (raw) => raw.trim().toLowerCase(),
    phone: (e164) => e164.replace(/^\+/, ''),
    source: 'https://developers.facebook.com/docs/marketing-api/conversions-api/parameters/customer-information-parameters',
  },
};
