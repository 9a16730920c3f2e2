import type { ReactNode } from 'react';

interface EmptyStateProps {
  title: string;
  description: string;
  action?: ReactNode;
}

export default function EmptyState({ title, description, action }: EmptyStateProps) {
  return (
    <section className="stack">
      <h1>{title}</h1>
      <div className="empty-state" data-testid="empty-state">
        <p>{description}</p>
        {action}
      </div>
    </section>
  );
}
