import { AD_CONSENT_PATHS, type CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

/** Google Ads: ad performance from its reports, conversions to its conversion actions (Data Manager). Its catalogue record: plain data, shared with the browser. */
export const googleAdsRecord = {
  label: 'Google Ads',
  kinds: ['source', 'destination'],
  ad: {
    targetLabel: 'Conversion action',
    sourceSegment: 'google',
    shortName: 'Google',
    lookbackDays: 14,
    history: { months: 132, label: 'Google Ads keeps daily figures for 11 years.' },
    // Google's conversion data can take up to 3 hours.
    lagHours: 3,
    utmSource: 'google',
    reusableLogin: true,
    addressAsOneIdentifier: true,
    // Google reports no received count for Data Manager uploads (docs/PLATFORMS.md): none on purpose.
    countedNotes: {
      notFinal: 'Google reports conversions up to 3 hours after upload: {when} is not final yet.',
      attributed: 'attributed to ads in conversion action “{target}”, from every upload to it',
      attribution:
        'Google attributes an upload when it matches an ad click (its gclid) or, by email or phone, a person who clicked an ad: buyers who came without an ad click are never attributed. Match quality shows the keys that raise it.',
    },
    matchKeys: {
      email: { anyOf: ['user.emailGoogle', 'user.email'] },
      phone: { anyOf: ['user.phoneE164'] },
      address: { allOf: ['address', 'user.firstName', 'user.lastName'] },
      clickId: { anyOf: ['clickIds.gclid', 'clickIds.gbraid', 'clickIds.wbraid'] },
      ipUserAgent: { allOf: ['context.ip', 'context.userAgent'] },
      consent: true,
    },
  },
  oauth: { provider: 'google', startRoute: 'GoogleAds', startLayout: 'empty', consentPath: AD_CONSENT_PATHS },
} as const satisfies CatalogueEntry;
