import type { ButtonHTMLAttributes } from 'react';
import Spinner from '@/components/ui/Spinner';

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary';
  busy?: boolean;
}

export default function Button({ variant = 'primary', busy = false, disabled, children, className, ...rest }: ButtonProps) {
  const classes = ['button', variant === 'secondary' && 'button--secondary', className].filter(Boolean).join(' ');
  return (
    <button className={classes} disabled={disabled || busy} aria-busy={busy || undefined} {...rest}>
      {busy && <Spinner />}
      {children}
    </button>
  );
}
