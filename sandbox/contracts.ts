import type { ContractCase } from '@/sandbox/contract';
import { googleAdsContract } from '@/sandbox/google_ads/contract';
import { metaAdsContract } from '@/sandbox/meta_ads/contract';
import { microsoftAdsContract } from '@/sandbox/microsoft_ads/contract';

/** Every platform's documented contract (one line per platform), run by tests/api/connectorContract.test.ts. */
export const CONTRACTS = [googleAdsContract, metaAdsContract, microsoftAdsContract] satisfies readonly ContractCase[];
