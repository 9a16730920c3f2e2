import CopyButton from '@/components/ui/CopyButton';
import styles from '@/components/ui/code.module.css';

/**
 * A titled code sample with its Copy button. The block wraps long lines inside its box and scrolls
 * within it when long, so it is a focusable, named region: a keyboard reaches what is scrolled.
 */
export default function CodeBlock({ title, code, testId }: { title: string; code: string; testId?: string }) {
  return (
    <div className="stack" style={{ gap: '0.4rem' }}>
      <div className={styles.codeHead}>
        <h4>{title}</h4>
        <CopyButton text={code} what={title.charAt(0).toLowerCase() + title.slice(1)} />
      </div>
      <pre className={styles.code} tabIndex={0} role="region" aria-label={title} data-testid={testId}>
        {code}
      </pre>
    </div>
  );
}
