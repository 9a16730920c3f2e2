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
    // Its goals report is per goal: this conversion's own only when nothing else sends to the goal.
    countedNotes: {
      notFinal: 'Microsoft records offline conversions 2–6 hours after upload: {when} is not final yet.',
      attributed: 'recorded in goal “{target}”, from every conversion sent to it',
      attribution:
        'Microsoft records an offline conversion only for a known, unexpired ad click (its msclkid) on a goal made at least two hours before the upload; it takes the others without error and never records them. Buyers who clicked no ad are never recorded.',
    },
    matchKeys: {
      email: { anyOf: ['user.email'] },
      phone: { anyOf: ['user.phoneE164'] },
      clickId: { anyOf: ['clickIds.msclkid'] },
    },
  },
  oauth: { provider: 'microsoft', startRoute: 'MicrosoftAds', startLayout: 'empty', consentPath: AD_CONSENT_PATHS },
} as const satisfies CatalogueEntry;
