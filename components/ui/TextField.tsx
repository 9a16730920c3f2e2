import { useId, type InputHTMLAttributes } from 'react';
import FieldError from '@/components/ui/FieldError';

interface TextFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  error?: string;
}

export default function TextField({ label, error, id, 'aria-describedby': hint, ...input }: TextFieldProps) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const errorId = `${inputId}-error`;
  // A hint the caller names is read with the error, not instead of it.
  const describedBy = [error ? errorId : null, hint].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} aria-invalid={Boolean(error)} aria-describedby={describedBy} {...input} />
      <FieldError id={errorId} error={error} />
    </div>
  );
}
