import { AD_CONSENT_PATHS, type CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

/** Microsoft Advertising: ad performance from its reports, offline conversions to its conversion goals. Its catalogue record: plain data, shared with the browser. */
export const microsoftAdsRecord = {
  label: 'Microsoft Advertising',
  kinds: ['source', 'destination'],
  ad: {
    targetLabel: 'Conversion goal',
    sourceSegment: 'microsoft',
    shortName: 'Microsoft',
    lookbackDays: 30,
    history: { months: 36, label: 'Microsoft Advertising keeps daily reports for 36 months.' },
    // Microsoft "can take up to six hours" to show offline conversions in reporting.
    lagHours: 6,
    utmSource: 'bing',
    countedNotes: {
      notFinal: 'Microsoft records offline conversions 2–6 hours after upload: {when} is not final yet.',
      attributionGap:
        'Microsoft counted {missing} % fewer than it accepted on {day}: it takes offline conversions without error and never records some (an unknown or expired click id, a goal made less than two hours before the upload).',
    },
    matchKeys: {
      email: { anyOf: ['user.email'] },
      phone: { anyOf: ['user.phoneE164'] },
      clickId: { anyOf: ['clickIds.msclkid'] },
    },
  },
  oauth: { provider: 'microsoft', startRoute: 'MicrosoftAds', startLayout: 'empty', consentPath: AD_CONSENT_PATHS },
} as const satisfies CatalogueEntry;
