import { AD_CONSENT_PATHS, type CatalogueEntry } from '@/lib/shared/integrations/catalogueEntry';

/** LinkedIn Ads (Marketing API): ad performance from adAnalytics, conversions to its conversion rules (Conversions API). Its catalogue record: plain data, shared with the browser. */
export const linkedinAdsRecord = {
  label: 'LinkedIn Ads',
  kinds: ['source', 'destination'],
  ad: {
    targetLabel: 'Conversion rule',
    sourceSegment: 'linkedin',
    shortName: 'LinkedIn',
    // LinkedIn counts conversions up to its rules' attribution windows (30 days by default): recent days move.
    lookbackDays: 30,
    // A backfill reads two years of daily performance (the ask; LinkedIn keeps performance data longer).
    history: { months: 24, label: 'Up to two years of LinkedIn daily ad performance are read.' },
    // "Reporting data … may be delayed up to 24 hours" for conversions (Ads Reporting, Conversions API FAQ).
    lagHours: 24,
    utmSource: 'linkedin',
    // adAnalytics pivoted by CONVERSION: what the rule attributed per day, from every source that feeds it.
    countedNotes: {
      notFinal: 'LinkedIn shows Conversions API events in reporting within about a day: {when} is not final yet.',
      attributed: 'attributed by conversion rule “{target}”, from the Insight Tag and every conversion sent to it',
      attribution:
        'LinkedIn attributes a conversion only to a member it can match (hashed email or the li_fat_id of an ad click) who clicked or viewed an ad within the rule’s attribution window; it takes the others without error and never reports them.',
    },
    matchKeys: {
      email: { anyOf: ['user.email'] },
      clickId: { anyOf: ['clickIds.li_fat_id'] },
    },
  },
  oauth: { provider: 'linkedin', startRoute: 'LinkedInAds', startLayout: 'empty', consentPath: AD_CONSENT_PATHS },
} as const satisfies CatalogueEntry;
