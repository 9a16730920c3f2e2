import { AD_CONSENT_PATHS, type CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

/** TikTok Ads (API for Business): ad performance from its integrated reports, conversions to its pixels (Events API 2.0). Its catalogue record: plain data, shared with the browser. */
export const tiktokAdsRecord = {
  label: 'TikTok Ads',
  kinds: ['source', 'destination'],
  ad: {
    targetLabel: 'Pixel',
    sourceSegment: 'tiktok',
    shortName: 'TikTok',
    // TikTok's attribution windows reach 28 days after a click: its last weeks move (docs/PLATFORMS.md).
    lookbackDays: 28,
    // Daily basic reports go back as far as the advertiser's data; we keep the 24 months a backfill reads.
    history: { months: 24, label: 'We read up to 24 months of TikTok daily reports.' },
    // TikTok: "Allow for up to 24 hours" before events show in reporting.
    lagHours: 24,
    utmSource: 'tiktok',
    testEventCode: true,
    reusableLogin: true,
    // Its report by conversion event gives what it attributed per day; it reports nothing as received per sender.
    countedNotes: {
      notFinal: 'TikTok shows events in reporting up to 24 hours later: {when} is not final yet.',
      attributed: '{events} events attributed to ads across the advertiser (pixel and Events API together)',
      attribution:
        'TikTok attributes an event to an ad when it matches a person who clicked one (within 28 days) or viewed one (within a day by default): buyers who saw no ad are never attributed. A ttclid from the landing page matches best.',
    },
    matchKeys: {
      email: { anyOf: ['user.email'] },
      phone: { anyOf: ['user.phoneE164'] },
      clickId: { anyOf: ['clickIds.ttclid', 'clickIds.ttp'] },
      ipUserAgent: { allOf: ['context.ip', 'context.userAgent'] },
    },
    // The Events API also matches by external_id (SHA-256).
    alsoTakes: ['externalId'],
  },
  oauth: { provider: 'tiktok', startRoute: 'TikTokAds', startLayout: 'default', consentPath: AD_CONSENT_PATHS },
} as const satisfies CatalogueEntry;
