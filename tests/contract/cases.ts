import { bigQueryContract } from '@/sandbox/bigquery/contract';
import { googleAdsContract } from '@/sandbox/google_ads/contract';
import { metaContract } from '@/sandbox/meta_ads/contract';
import { microsoftAdsContract } from '@/sandbox/microsoft_ads/contract';
import { linkedinAdsContract } from '@/sandbox/linkedin_ads/contract';
import { mixpanelContract } from '@/sandbox/mixpanel/contract';
import { tiktokContract } from '@/sandbox/tiktok_ads/contract';
import type { ContractCase } from '@/tests/contract/case';

/**
 * Every platform's case for the contract suite, one line each: a platform's facts live beside its fake
 * (sandbox/<slug>/contract.ts). Stripe has none: its connector only checks a key (no deliver, report or writer).
 */
export const CASES: ContractCase[] = [
  googleAdsContract,
  metaContract,
  microsoftAdsContract,
  linkedinAdsContract,
  tiktokContract,
  mixpanelContract,
  bigQueryContract,
];
