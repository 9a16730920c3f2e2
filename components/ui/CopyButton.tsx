import { useEffect, useRef, useState } from 'react';
import Button from '@/components/ui/Button';
import styles from '@/components/ui/code.module.css';

/** Puts text on the clipboard; where the Clipboard API is refused (no secure context), through a hidden textarea. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const done = document.execCommand('copy');
    area.remove();
    return done;
  }
}

/**
 * "Copy {what}": a real button (Enter and Space work), and a status line screen readers announce
 * (aria-live) saying it was copied, or that it could not be and the text must be selected by hand.
 */
export default function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    clearTimeout(timer.current);
    setState((await copyText(text)) ? 'copied' : 'failed');
    timer.current = setTimeout(() => setState('idle'), 4000);
  }

  return (
    <span className="actions" style={{ gap: '0.5rem', alignItems: 'center' }}>
      <Button type="button" variant="secondary" aria-label={`Copy ${what}`} onClick={() => void copy()}>
        Copy
      </Button>
      <span role="status" aria-live="polite" className={`muted ${styles.copied}`}>
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy: select the text and copy it.' : ''}
      </span>
    </span>
  );
}
