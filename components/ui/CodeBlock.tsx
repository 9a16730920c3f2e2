import CopyButton from '@/components/ui/CopyButton';
import styles from '@/components/ui/code.module.css';

/**
 * A titled code sample with its Copy button. The block wraps long lines inside its box and scrolls
 * within it when long, so it is a focusable, named region: a keyboard reaches what is scrolled.
 */
export default function CodeBlock({
  title,
  code,
  testId,
  level = 4,
}: {
  title: string;
  code: string;
  testId?: string;
  /** The title's heading level: the one after its section's. */
  level?: 3 | 4;
}) {
  const Heading = level === 3 ? 'h3' : 'h4';
  return (
    <div className="stack" style={{ gap: '0.4rem' }}>
      <div className={styles.codeHead}>
        <Heading>{title}</Heading>
        <CopyButton text={code} what={title.charAt(0).toLowerCase() + title.slice(1)} />
      </div>
      <pre className={styles.code} tabIndex={0} role="region" aria-label={title} data-testid={testId}>
        {code}
      </pre>
    </div>
  );
}
