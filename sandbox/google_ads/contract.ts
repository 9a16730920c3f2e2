import { randomUUID } from 'node:crypto';
import type { ContractCase } from '@/sandbox/contract';

type Identifier = { emailAddress?: string; phoneNumber?: string };

/** Google's Data Manager API (events:ingest), as Google documents it (docs/PLATFORMS.md, docs/MATCH_KEYS.md). */
export const googleAdsContract: ContractCase = {
  platform: 'google_ads',
  provider: 'google',
  received: 'google',
  version: 'dataManager',
  versionOf: (url) => /^\/datamanager\/(v\d+)\//.exec(url.pathname)?.[1] ?? null,
  maxEvents: {
    count: 2000,
    source: 'https://developers.google.com/data-manager/api/reference/rest/v1/events/ingest (events: at most 2000)',
  },
  event: (serial, user) => ({
    id: `contract-${randomUUID()}`,
    name: 'Purchase',
    time: Math.floor(Date.now() / 1000) - 3600,
    value: 10 + serial,
    currency: 'USD',
    user,
    clickIds: { gclid: `Cj0KCQ-contract-${serial}` },
    context: { actionSource: 'website', ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (contract)' },
  }),
  keyPartOf: (event) => event.id,
  identifiersOf: ({ event }) => {
    const identifiers = ((event.userData as { userIdentifiers?: Identifier[] } | undefined)?.userIdentifiers ?? []) as Identifier[];
    return {
      email: identifiers.find((identifier) => identifier.emailAddress)?.emailAddress ?? null,
      phone: identifiers.find((identifier) => identifier.phoneNumber)?.phoneNumber ?? null,
    };
  },
  form: {
    // Gmail and Googlemail addresses lose the dots of their local part and anything from a '+'.
    email: (raw) => {
      const [local = '', domain = ''] = raw.trim().toLowerCase().replace(/\s+/g, '').split('@');
      return ['gmail.com', 'googlemail.com'].includes(domain)
        ? `${local.split('+')[0]!.replace(/\./g, '')}@${domain}`
        : `${local}@${domain}`;
    },
    phone: (e164) => e164,
    source: 'https://developers.google.com/data-manager/api/get-started/formatting',
  },
};
