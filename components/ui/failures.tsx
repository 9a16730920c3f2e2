import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { messageOf } from '@/components/integrations/shared';
import Alert from '@/components/ui/Alert';
import type { ApiFailure } from '@/store/api';

// A failed API call as forms and pages show it: its message, a link to the plans, the errors under their fields.

export const isPlanLimit = (error: unknown) => (error as Partial<ApiFailure> | undefined)?.code === 'plan_limit';

/** A failed call in words; a plan limit (the server names the plans that include what was refused) links to the plans. */
export function FailureAlert({ orgId, error, fallback }: { orgId: string; error: unknown; fallback: string }) {
  return (
    <Alert>
      {messageOf(error, fallback)}
      {isPlanLimit(error) && (
        <>
          {' '}
          <Link href={`/${encodeURIComponent(orgId)}/subscription`}>See the plans</Link>
        </>
      )}
    </Alert>
  );
}

/** The field errors of a failed call, keyed as the server keys them ('destination.targetId', 'mapping.events.0'). */
export const fieldErrorsOf = (error: unknown): Record<string, string[]> => (error as Partial<ApiFailure> | undefined)?.fieldErrors ?? {};

/** A failure that is not about fields (those show under their fields), or null. */
export const formFailureOf = (error: unknown) => (error && Object.keys(fieldErrorsOf(error)).length === 0 ? error : null);

/**
 * The submit of an edit form: its changes are checked with the handler's own schema first, then
 * saved; a 400's field errors land on the fields, and `onSaved` runs once it is saved.
 */
export function useCheckedSubmit<T>(
  check: (changes: T) => Record<string, string[]>,
  save: (changes: T) => Promise<{ error: unknown } | { data: unknown }>,
  onSaved: () => void,
) {
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  async function submit(event: FormEvent, changes: T) {
    event.preventDefault();
    const found = check(changes);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const result = await save(changes);
    if ('error' in result) setErrors(fieldErrorsOf(result.error));
    else onSaved();
  }
  return { errors, setErrors, submit };
}

/** The first message of a field, or of any field under it ('mapping.events' also finds 'mapping.events.2'). */
export function firstError(errors: Record<string, string[]>, field: string): string | undefined {
  const exact = errors[field]?.[0];
  if (exact) return exact;
  const nested = Object.entries(errors).find(([key]) => key.startsWith(`${field}.`));
  return nested?.[1][0];
}
