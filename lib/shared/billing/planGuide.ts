import { featuresOf, PLAN_ENTITLEMENTS, type PlanEntitlements, type SyncFrequency } from '@/lib/shared/billing/entitlements';
import { AD_DATA_DESTINATIONS_IN_WORDS, AD_PLATFORMS_IN_WORDS } from '@/lib/shared/integrations/platforms';

/**
 * The plans explained, for the plan page: each card's feature lines (featuresOf's words, verbatim) with what
 * they mean and what a plan leaves out, and "which plan do I need?" answered from the same entitlements table.
 */

export interface PlanLine {
  /** The feature line as the plan card and the plans API name it ("Conversions API uploads"). */
  text: string;
  included: boolean;
  /** What it means for the person choosing; empty when the line says it all. */
  note: string;
}

const SYNC_EVERY: Record<SyncFrequency, string> = { daily: 'once a day', hourly: 'every hour', '15-minute': 'every 15 minutes' };

const CONVERSIONS = 'Conversions API uploads';
const BACKFILLS = 'Historical backfills';
const RECENT_DAYS = 'a connection copies its recent days (its lookback) from its first run on';

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
const names = (plans: readonly PlanEntitlements[], conjunction = 'or') => plans.map((plan) => plan.name).join(` ${conjunction} `);
/** Every conversion needs the entitlement, whatever it reads and wherever it sends (services/conversions.ts). */
const CONVERSIONS_TO = `to ${AD_PLATFORMS_IN_WORDS} (or events to ${AD_DATA_DESTINATIONS_IN_WORDS})`;

/** A plan card's lines: featuresOf's, each with its meaning, and the two a smaller plan does not include. */
export function planLines(plan: PlanEntitlements): PlanLine[] {
  const [accounts, sync, ...rest] = featuresOf(plan);
  const support = rest[rest.length - 1]!;
  return [
    { text: accounts!, included: true, note: 'across all your sources' },
    { text: sync!, included: true, note: `ad data copied ${SYNC_EVERY[plan.syncFrequency]}` },
    {
      text: CONVERSIONS,
      included: plan.conversions,
      note: plan.conversions ? `send conversions ${CONVERSIONS_TO}` : 'not included: ad data only',
    },
    {
      text: BACKFILLS,
      included: plan.historicalBackfill,
      note: plan.historicalBackfill ? 'copy months of past days into a connection' : 'not included',
    },
    { text: support, included: true, note: '' },
  ];
}

/** "Which plan do I need?": questions a marketer can answer, each with the plans that answer it. */
export function planQuestions(): Array<{ question: string; answer: string }> {
  const withConversions = PLAN_ENTITLEMENTS.filter((plan) => plan.conversions);
  const withoutConversions = PLAN_ENTITLEMENTS.filter((plan) => !plan.conversions);
  const withBackfills = PLAN_ENTITLEMENTS.filter((plan) => plan.historicalBackfill);
  const withoutBackfills = PLAN_ENTITLEMENTS.filter((plan) => !plan.historicalBackfill);
  const accounts = PLAN_ENTITLEMENTS.map((plan) =>
    plan.adAccounts === 'unlimited' ? `more: ${plan.name}` : `up to ${plan.adAccounts}: ${plan.name}`,
  );
  const sync = PLAN_ENTITLEMENTS.map((plan) => `${SYNC_EVERY[plan.syncFrequency]}: ${plan.name}`);
  return [
    {
      question: `Will you send conversions ${CONVERSIONS_TO}?`,
      answer:
        `${names(withConversions)} (${CONVERSIONS}).` +
        (withoutConversions.length ? ` ${names(withoutConversions)} copies ad data only.` : ''),
    },
    { question: 'How many ad accounts will you read, across all sources?', answer: `${capitalised(accounts.join('; '))}.` },
    { question: 'How often must the ad data be copied?', answer: `${capitalised(sync.join('; '))}.` },
    {
      question: 'Do you need months of past days copied in?',
      answer:
        `${names(withBackfills)} (${BACKFILLS}).` +
        (withoutBackfills.length ? ` On ${names(withoutBackfills, 'and')}, ${RECENT_DAYS}.` : ''),
    },
  ];
}
