/**
 * What each plan includes: the one table the plan cards, the server's checks and the UI's limits
 * read. Prices live in Stripe. Runs anywhere (no server or browser imports).
 */
export const PLAN_IDS = ['starter', 'growth', 'scale'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export type SyncFrequency = 'daily' | 'hourly' | '15-minute';
export type SupportLevel = 'email' | 'chat' | 'priority';

export interface Entitlements {
  /** Ad accounts selected across the organization's sources. */
  adAccounts: number | 'unlimited';
  /** How often ad data is synced. */
  syncFrequency: SyncFrequency;
  /** Conversions uploaded to the ad platforms (Conversions API, Data Manager, offline conversions). */
  conversions: boolean;
  /** A new connection may backfill past days. */
  historicalBackfill: boolean;
  support: SupportLevel;
  /**
   * Events a second one app key may submit (POST /api/submissions, all instances together): sized for a
   * busy shop's sale, not for the average day. A website's publishable key is also limited per visitor
   * address (lib/server/limits/submissionLimits.ts).
   */
  ingestEventsPerSecond: number;
}

export interface PlanEntitlements extends Entitlements {
  id: PlanId;
  name: string;
}

/** Cheapest first: an upgrade is the first plan after the current one that includes what was asked. */
export const PLAN_ENTITLEMENTS: readonly PlanEntitlements[] = [
  {
    id: 'starter',
    name: 'Starter',
    adAccounts: 2,
    syncFrequency: 'daily',
    conversions: false,
    historicalBackfill: false,
    support: 'email',
    ingestEventsPerSecond: 1_000,
  },
  {
    id: 'growth',
    name: 'Growth',
    adAccounts: 10,
    syncFrequency: 'hourly',
    conversions: true,
    historicalBackfill: false,
    support: 'chat',
    ingestEventsPerSecond: 1_000,
  },
  {
    id: 'scale',
    name: 'Scale',
    adAccounts: 'unlimited',
    syncFrequency: '15-minute',
    conversions: true,
    historicalBackfill: true,
    support: 'priority',
    ingestEventsPerSecond: 5_000,
  },
];

/**
 * An organization without a known plan (no subscription, or a Stripe price we do not sell) gets the
 * smallest plan's entitlements: nobody gets more than they pay for, and nobody is locked out.
 */
export const FALLBACK_PLAN: PlanId = 'starter';

const SYNC_LABELS: Record<SyncFrequency, string> = { daily: 'Daily sync', hourly: 'Hourly sync', '15-minute': '15-minute sync' };
const SUPPORT_LABELS: Record<SupportLevel, string> = { email: 'Email support', chat: 'Chat support', priority: 'Priority support' };

export const isPlanId = (value: unknown): value is PlanId => (PLAN_IDS as readonly unknown[]).includes(value);

/** The plan of that id, or null when there is none (no plan, or an id we do not sell). */
export function planOf(plan: unknown): PlanEntitlements | null {
  return PLAN_ENTITLEMENTS.find((candidate) => candidate.id === plan) ?? null;
}

/** A plan's name as the plans table writes it ("Growth"); an id we do not sell as it is, none as "—". */
export function planNameOf(plan: unknown): string {
  return planOf(plan)?.name ?? (typeof plan === 'string' && plan !== '' ? plan : '—');
}

/** What an organization on `plan` may use; without a known plan, the fallback plan's. */
export function entitlementsOf(plan: unknown): PlanEntitlements {
  return planOf(plan) ?? planOf(FALLBACK_PLAN)!;
}

/** The feature lines of a plan card, derived from the table. */
export function featuresOf(entitlements: Entitlements): string[] {
  return [
    entitlements.adAccounts === 'unlimited' ? 'Unlimited ad accounts' : adAccountsPhrase(entitlements.adAccounts),
    SYNC_LABELS[entitlements.syncFrequency],
    ...(entitlements.conversions ? ['Conversions API uploads'] : []),
    ...(entitlements.historicalBackfill ? ['Historical backfills'] : []),
    SUPPORT_LABELS[entitlements.support],
  ];
}

const adAccountsPhrase = (count: number) => `${count} ad account${count === 1 ? '' : 's'}`;

export const includesAdAccounts = (entitlements: Entitlements, count: number) =>
  entitlements.adAccounts === 'unlimited' || count <= entitlements.adAccounts;

/** The cheapest plan that includes `count` ad accounts. */
export function planForAdAccounts(count: number): PlanEntitlements {
  return PLAN_ENTITLEMENTS.find((plan) => includesAdAccounts(plan, count)) ?? PLAN_ENTITLEMENTS[PLAN_ENTITLEMENTS.length - 1]!;
}

interface SourceAccounts {
  platform: string;
  accounts: ReadonlyArray<{ id: string }>;
}

/** Ad accounts selected across sources; the same account picked in two sources counts once. */
export function countAdAccounts(sources: readonly SourceAccounts[]): number {
  return new Set(sources.flatMap((source) => source.accounts.map((account) => `${source.platform}:${account.id}`))).size;
}

/**
 * Why a selection of `selected` ad accounts is refused on `plan`, naming the plan that includes it:
 * "The Starter plan includes 2 ad accounts; you selected 6. Upgrade to Growth for up to 10."
 */
export function adAccountLimitMessage(plan: unknown, selected: number): string {
  const current = planOf(plan);
  const { adAccounts } = entitlementsOf(plan);
  const limit = adAccounts === 'unlimited' ? 'unlimited ad accounts' : adAccountsPhrase(adAccounts);
  const upgrade = planForAdAccounts(selected);
  const offer = upgrade.adAccounts === 'unlimited' ? 'unlimited ad accounts' : `up to ${upgrade.adAccounts}`;
  return current
    ? `The ${current.name} plan includes ${limit}; you selected ${selected}. Upgrade to ${upgrade.name} for ${offer}.`
    : `Without a plan, an organization includes ${limit}; you selected ${selected}. Choose ${upgrade.name} for ${offer}.`;
}

/** The limit beside the account picker: "2 of 2 ad accounts on Starter". */
export function adAccountUsageLabel(plan: unknown, selected: number): string {
  const current = planOf(plan);
  const { adAccounts } = entitlementsOf(plan);
  if (adAccounts === 'unlimited') return `${adAccountsPhrase(selected)} · unlimited on ${current?.name ?? 'your plan'}`;
  return `${selected} of ${adAccountsPhrase(adAccounts)} ${current ? `on ${current.name}` : 'without a plan'}`;
}
