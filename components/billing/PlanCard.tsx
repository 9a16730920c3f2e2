import styles from '@/components/billing/billing.module.css';
import Button from '@/components/ui/Button';
import { planOf } from '@/lib/shared/billing/entitlements';
import { planLines } from '@/lib/shared/billing/planGuide';
import type { PlanWithPrice } from '@/lib/shared/billing/plans';

const money = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount / 100);

/** What the card's button does: a checkout without a subscription, Stripe's portal to change a live one. */
export type PlanAction = { label: string; busy: boolean; disabled: boolean; onClick: () => void } | null;

/**
 * One plan: its price, its feature lines with what each means (and what it leaves out), and its button at
 * the card's foot, level with the other cards' whatever their lengths.
 */
export default function PlanCard({ plan, current, action }: { plan: PlanWithPrice; current: boolean; action: PlanAction }) {
  const entitlements = planOf(plan.id);
  const lines = entitlements ? planLines(entitlements) : plan.features.map((text) => ({ text, included: true, note: '' }));
  const titleId = `plan-${plan.id}-title`;
  return (
    <li className={`card stack ${styles.card}`}>
      <h2 id={titleId} style={{ margin: 0 }}>
        {plan.name} {current && <span className="badge">Current plan</span>}
      </h2>
      <p style={{ margin: 0 }}>
        <strong style={{ fontSize: '1.5rem' }}>{money(plan.amount, plan.currency)}</strong> <span className="muted">per month</span>
      </p>
      <ul className={styles.lines}>
        {lines.map((line) => (
          <li key={line.text} className={line.included ? undefined : styles.missing}>
            {line.included ? line.text : <s>{line.text}</s>}
            {line.note && <span className="muted"> — {line.note}</span>}
          </li>
        ))}
      </ul>
      {action && (
        <div className={styles.foot}>
          <Button type="button" busy={action.busy} disabled={action.disabled} onClick={action.onClick}>
            {action.label}
          </Button>
        </div>
      )}
    </li>
  );
}
