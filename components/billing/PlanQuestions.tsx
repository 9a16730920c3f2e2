import styles from '@/components/billing/billing.module.css';
import { planQuestions } from '@/lib/shared/billing/planGuide';

/** "Which plan do I need?": four questions a marketer can answer, each answered with the plans' names. */
export default function PlanQuestions() {
  return (
    <section className="stack" style={{ gap: '0.5rem' }} aria-labelledby="which-plan-title">
      <h2 id="which-plan-title" style={{ margin: 0 }}>
        Which plan do I need?
      </h2>
      <dl className={styles.questions}>
        {planQuestions().map(({ question, answer }) => (
          <div key={question}>
            <dt>{question}</dt>
            <dd>{answer}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
