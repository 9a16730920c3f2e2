import type { ReactNode } from 'react';

export default function Alert({ children }: { children: ReactNode }) {
  return (
    <div role="alert" className="alert alert--error">
      {children}
    </div>
  );
}
