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
    countedNotes: {
      notFinal: 'Google reports conversions up to 3 hours after upload: {when} is not final yet.',
      attributionGap: '{missing} % of Google uploads matched no click or customer: see match quality.',
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
