import type { ReactNode } from 'react';

/**
 * A box that scrolls sideways when its content (a wide table, code) is wider than the screen: a keyboard
 * can focus it and scroll it with the arrow keys, a screen reader names it, and a shadow at the edge
 * shows there is more (globals.css `.scroll-region`).
 */
export default function ScrollRegion({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div className={`scroll-region ${className ?? ''}`.trim()} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
