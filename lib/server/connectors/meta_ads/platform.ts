import { AD_CONSENT_PATHS, type CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

/** Meta Ads: ad performance from Insights, conversions to its pixels (Conversions API). Its catalogue record: plain data, shared with the browser. */
export const metaAdsRecord = {
  label: 'Meta Ads',
  kinds: ['source', 'destination'],
  ad: {
    targetLabel: 'Pixel',
    sourceSegment: 'meta',
    shortName: 'Meta',
    lookbackDays: 28,
    history: { months: 37, label: 'Meta keeps insights for 37 months.' },
    // Meta attributes conversions to ads with a delay of up to a day.
    lagHours: 24,
    utmSource: 'facebook',
    testEventCode: true,
    reusableLogin: true,
    // Its pixel stats tell server events by event name, not by sender; its insights are per ad account.
    countedNotes: {
      notFinal: 'Meta attributes conversions to ads up to a day later: {when} is not final yet.',
      received: '{events} server events at the pixel, from all its server senders (this conversion, other conversions, other tools)',
      attributed: '{events} events attributed to ads across the ad account (every pixel, browser and server; custom events together)',
      attribution:
        'Meta attributes an event to an ad when it matches a person who saw or clicked one: buyers who saw no ad are received but never attributed. Match quality shows the keys that raise it.',
    },
    matchKeys: {
      email: { anyOf: ['user.email'] },
      phone: { anyOf: ['user.phone'] },
      address: { anyOf: ['user.city', 'user.state', 'user.postalCode', 'user.countryCode'] },
      clickId: { anyOf: ['clickIds.fbc'] },
      ipUserAgent: { allOf: ['context.ip', 'context.userAgent'] },
    },
    // Meta's Conversions API also matches by names, date of birth (db), gender (ge) and external id.
    alsoTakes: ['name', 'dateOfBirth', 'gender', 'externalId'],
  },
  oauth: { provider: 'meta', startRoute: 'MetaAds', startLayout: 'default', consentPath: AD_CONSENT_PATHS },
} as const satisfies CatalogueEntry;
