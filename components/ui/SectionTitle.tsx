import type { ReactNode } from 'react';

/** A section's heading on a detail page; the section names it in aria-labelledby. */
export default function SectionTitle({ id, children }: { id: string; children: ReactNode }) {
  return (
    <h2 id={id} style={{ margin: 0, fontSize: '1.1rem' }}>
      {children}
    </h2>
  );
}
