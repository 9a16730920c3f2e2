import Link from 'next/link';
import type { ReactNode } from 'react';
import guide from '@/components/ui/guide.module.css';

export interface GuideStep {
  title: string;
  done: boolean;
  detail: string;
  action: { href: string; label: string } | null;
  /** False while the steps above are not done: its action shows, unusable (true unless said). */
  enabled?: boolean;
}

/**
 * A first-run guide in a card: a heading and a line under it, then numbered steps that tick from real
 * state (never from a click), each with what it is for and a link to do it. `children` go under the steps.
 */
export default function Guide({
  id,
  title,
  summary,
  label,
  testId,
  steps,
  children,
}: {
  /** The heading's id (the card is labelled by it). */
  id: string;
  title: string;
  summary: ReactNode;
  /** The list's accessible name. */
  label: string;
  testId: string;
  steps: GuideStep[];
  children?: ReactNode;
}) {
  return (
    <section className="stack card" aria-labelledby={id} data-testid={testId}>
      <div>
        <h2 id={id} style={{ margin: 0, fontSize: '1.15rem' }}>
          {title}
        </h2>
        <p className="muted" style={{ margin: '0.25rem 0 0' }}>
          {summary}
        </p>
      </div>
      <ol className={guide.guide} aria-label={label}>
        {steps.map(({ title: stepTitle, done, detail, action, enabled = true }) => (
          <li key={stepTitle} className={`${guide.guideStep} ${done ? guide.guideDone : ''}`}>
            <div className={guide.guideText}>
              <strong>
                {stepTitle}
                <span className="sr-only">{done ? ' (done)' : enabled ? ' (to do)' : ' (waiting for the steps above)'}</span>
              </strong>
              <p className="muted">{detail}</p>
              {action && (
                <div>
                  {enabled ? (
                    <Link className={`button button--small ${done ? 'button--secondary' : ''}`.trim()} href={action.href}>
                      {action.label}
                    </Link>
                  ) : (
                    <span className={`button button--small ${guide.disabledLink}`} role="link" aria-disabled="true">
                      {action.label}
                    </span>
                  )}
                </div>
              )}
            </div>
          </li>
        ))}
      </ol>
      {children}
    </section>
  );
}
