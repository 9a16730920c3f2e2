/**
 * What the sandbox's ad platforms report back about the conversions they received (docs/SANDBOX.md,
 * "Counted by the platform"): each conversion of the ledger is dated by the day it arrived in its account's
 * time zone (Microsoft's reports, Google's segments.date and Meta's insights and TikTok's report all date by the account's day;
 * Meta's pixel stats are hourly, in unix time), and each platform has switchable, deterministic
 * imperfections, as the real ones have. Each platform's part (its switches, their defaults and what it
 * counts) is sandbox/<platform>/reporting.ts; what they share is sandbox/counted.ts.
 */
import { createClock } from '@/sandbox/counted';
import type { ConversionLedger } from '@/sandbox/conversions';
import { GOOGLE_REPORTING } from '@/sandbox/google_ads/reporting';
import { META_REPORTING } from '@/sandbox/meta_ads/reporting';
import { MICROSOFT_REPORTING } from '@/sandbox/microsoft_ads/reporting';
import { LINKEDIN_REPORTING } from '@/sandbox/linkedin_ads/reporting';
import { TIKTOK_REPORTING } from '@/sandbox/tiktok_ads/reporting';

/** The platforms that report what they counted, by the ledger's name of each. */
const REPORTING_PLATFORMS = {
  microsoft: MICROSOFT_REPORTING,
  google: GOOGLE_REPORTING,
  meta: META_REPORTING,
  linkedin: LINKEDIN_REPORTING,
  tiktok: TIKTOK_REPORTING,
};

export type ReportingSwitches = { [P in keyof typeof REPORTING_PLATFORMS]: (typeof REPORTING_PLATFORMS)[P]['defaults'] };
type ReportingPlatform = keyof ReportingSwitches;

const PLATFORMS = Object.keys(REPORTING_PLATFORMS) as ReportingPlatform[];

const DEFAULT_SWITCHES: ReportingSwitches = {
  microsoft: MICROSOFT_REPORTING.defaults,
  google: GOOGLE_REPORTING.defaults,
  meta: META_REPORTING.defaults,
  linkedin: LINKEDIN_REPORTING.defaults,
  tiktok: TIKTOK_REPORTING.defaults,
};

export type SandboxReporting = ReturnType<typeof createReporting>;

/** Whether `platform` is one whose switches the reporting form and JSON may change. */
export const isReportingPlatform = (platform: string): platform is ReportingPlatform => PLATFORMS.includes(platform as ReportingPlatform);

/** Each platform's section of the switches' form, as they are set now. */
export const switchesForm = (switches: ReportingSwitches) =>
  [
    REPORTING_PLATFORMS.microsoft.form(switches.microsoft),
    REPORTING_PLATFORMS.google.form(switches.google),
    REPORTING_PLATFORMS.meta.form(switches.meta),
    REPORTING_PLATFORMS.linkedin.form(switches.linkedin),
    REPORTING_PLATFORMS.tiktok.form(switches.tiktok),
  ].join('\n');

/** The switches of every platform, the reports' clock, and what each platform counts of the ledger at that clock. */
export function createReporting(ledger: ConversionLedger) {
  let switches: ReportingSwitches = structuredClone(DEFAULT_SWITCHES);
  const clock = createClock();

  function set(changes: { [P in keyof ReportingSwitches]?: Partial<ReportingSwitches[P]> }) {
    switches = {
      microsoft: { ...switches.microsoft, ...changes.microsoft },
      google: { ...switches.google, ...changes.google },
      meta: { ...switches.meta, ...changes.meta },
      linkedin: { ...switches.linkedin, ...changes.linkedin },
      tiktok: { ...switches.tiktok, ...changes.tiktok },
    };
    return switches;
  }

  return {
    get switches() {
      return switches;
    },
    set,
    clock,
    reset: () => {
      switches = structuredClone(DEFAULT_SWITCHES);
      clock.set(null);
    },
    ...MICROSOFT_REPORTING.counts(ledger, () => switches.microsoft, clock),
    ...GOOGLE_REPORTING.counts(ledger, () => switches.google, clock),
    ...META_REPORTING.counts(ledger, () => switches.meta, clock),
    ...LINKEDIN_REPORTING.counts(ledger, () => switches.linkedin, clock),
    ...TIKTOK_REPORTING.counts(ledger, () => switches.tiktok, clock),
  };
}
