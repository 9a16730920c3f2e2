import type { CSSProperties, ReactNode } from 'react';
import styles from '@/components/ui/stats.module.css';

/** A labelled group of figures; `large` for plain counts. */
export function Stats({ label, large = false, children }: { label: string; large?: boolean; children: ReactNode }) {
  return (
    <div className={large ? `${styles.stats} ${styles.large}` : styles.stats} role="group" aria-label={label}>
      {children}
    </div>
  );
}

/** One figure over its label. */
export function Stat({ label, valueStyle, children }: { label: string; valueStyle?: CSSProperties; children: ReactNode }) {
  return (
    <div className={styles.stat}>
      <span className={styles.value} style={valueStyle}>
        {children}
      </span>
      <span className={styles.label}>{label}</span>
    </div>
  );
}
