import type { ReactNode } from 'react';
import Brand from '@/layouts/Brand';

/**
 * The sign-in pages (/login, /signUp, /forgotPassword): the form centred, no sidebar — a visitor
 * has nothing to navigate yet. It is still the product's default layout of those routes, marked as such.
 */
export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main id="main" data-layout="default" className="auth-layout">
      <Brand href="/" />
      {children}
    </main>
  );
}
