import type { ReactNode } from 'react';
import styles from '@/components/conversions/conversions.module.css';

/** A radio choice with a name and a line about it. */
export default function Choice({
  name,
  value,
  checked,
  onChange,
  title,
  detail,
}: {
  name: string;
  value: string;
  checked: boolean;
  onChange: (value: string) => void;
  title: string;
  detail: ReactNode;
}) {
  return (
    <li>
      <label className={styles.choice}>
        <input type="radio" name={name} value={value} checked={checked} onChange={() => onChange(value)} />
        <span className={styles.choiceText}>
          <strong>{title}</strong>
          <span className="muted">{detail}</span>
        </span>
      </label>
    </li>
  );
}
