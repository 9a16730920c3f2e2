import Head from 'next/head';
import type { FormEventHandler, ReactNode } from 'react';
import Alert from '@/components/ui/Alert';

interface AuthCardProps {
  title: string;
  error: string | null;
  notice?: ReactNode;
  onSubmit: FormEventHandler<HTMLFormElement>;
  children: ReactNode;
  footer?: ReactNode;
}

/** The frame of the sign-in pages: a titled form, its error, and links to the other pages. */
export default function AuthCard({ title, error, notice, onSubmit, children, footer }: AuthCardProps) {
  return (
    <div className="card auth-card stack">
      <Head>
        <title>{`${title} · SignalBridge`}</title>
      </Head>
      <form className="stack" onSubmit={onSubmit} noValidate aria-labelledby="auth-title">
        <h1 id="auth-title">{title}</h1>
        {notice && (
          <div role="status" className="alert alert--info">
            {notice}
          </div>
        )}
        {error && <Alert>{error}</Alert>}
        {children}
      </form>
      {footer && <div className="muted stack">{footer}</div>}
    </div>
  );
}
