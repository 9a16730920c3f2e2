/**
 * The one list of the platforms the sandbox fakes. Adding a platform's fake is its folder
 * (sandbox/<platform>/, whose index.ts exports its `Fake`) and one line here; the sandbox's server,
 * its index page and the app's environment are built from this list (sandbox/platforms.ts), in its
 * order (the sections of the /__sandbox pages).
 */
import { BIGQUERY_FAKE } from '@/sandbox/bigquery';
import { GOOGLE_FAKE } from '@/sandbox/google';
import { GOOGLE_ADS_FAKE } from '@/sandbox/google_ads';
import { META_ADS_FAKE } from '@/sandbox/meta_ads';
import { MICROSOFT_ADS_FAKE } from '@/sandbox/microsoft_ads';
import { LINKEDIN_ADS_FAKE } from '@/sandbox/linkedin_ads';
import { MIXPANEL_FAKE } from '@/sandbox/mixpanel';
import { TIKTOK_ADS_FAKE } from '@/sandbox/tiktok_ads';
import type { Fake } from '@/sandbox/fake';

export const FAKES = [
  GOOGLE_FAKE,
  META_ADS_FAKE,
  GOOGLE_ADS_FAKE,
  MICROSOFT_ADS_FAKE,
  LINKEDIN_ADS_FAKE,
  TIKTOK_ADS_FAKE,
  BIGQUERY_FAKE,
  MIXPANEL_FAKE,
] as const satisfies readonly Fake[];
