import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import styles from '@/components/ui/tabs.module.css';

export interface TabItem<K extends string> {
  key: K;
  label: string;
}

/**
 * A tablist as WAI-ARIA's Tabs pattern describes it (automatic activation): one tab in the Tab order (the
 * selected one), ←/→ move to the previous/next tab and select it, Home/End the first/last. The caller keeps which
 * tab is selected (the page's address) and renders the selected panel in `TabPanel`.
 */
export function Tabs<K extends string>({
  label,
  idPrefix,
  tabs,
  selected,
  onSelect,
}: {
  label: string;
  idPrefix: string;
  tabs: ReadonlyArray<TabItem<K>>;
  selected: K;
  onSelect: (key: K) => void;
}) {
  const refs = useRef(new Map<K, HTMLButtonElement>());
  function onKeyDown(event: KeyboardEvent) {
    const index = tabs.findIndex((tab) => tab.key === selected);
    const next =
      event.key === 'ArrowRight'
        ? (index + 1) % tabs.length
        : event.key === 'ArrowLeft'
          ? (index - 1 + tabs.length) % tabs.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? tabs.length - 1
              : null;
    if (next === null) return;
    event.preventDefault();
    const key = tabs[next]!.key;
    onSelect(key);
    refs.current.get(key)?.focus();
  }
  return (
    <div role="tablist" aria-label={label} className={styles.tablist} onKeyDown={onKeyDown}>
      {tabs.map((tab) => (
        <button
          key={tab.key}
          ref={(element) => {
            if (element) refs.current.set(tab.key, element);
            else refs.current.delete(tab.key);
          }}
          type="button"
          role="tab"
          id={`${idPrefix}-tab-${tab.key}`}
          aria-selected={tab.key === selected}
          aria-controls={`${idPrefix}-panel-${tab.key}`}
          tabIndex={tab.key === selected ? 0 : -1}
          className={styles.tab}
          onClick={() => onSelect(tab.key)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/** The selected tab's panel, named by its tab. */
export function TabPanel({ idPrefix, tab, children }: { idPrefix: string; tab: string; children: ReactNode }) {
  return (
    <div
      role="tabpanel"
      id={`${idPrefix}-panel-${tab}`}
      aria-labelledby={`${idPrefix}-tab-${tab}`}
      tabIndex={0}
      className={`stack ${styles.panel}`}
      style={{ gap: '2rem' }}
    >
      {children}
    </div>
  );
}
