import { useEffect } from 'react';
import { issuesToFieldErrors } from '@/lib/shared/fieldErrors';

/**
 * The handler's own schemas, checked before sending; errors keyed like the server's 400
 * ('mapping.value.amount'). They load after the page is shown (zod is not in its first load): until
 * then the form sends and the server's 400 names the fields.
 */

type Schemas = typeof import('@/lib/shared/schemas/conversions');
let schemas: Schemas | null = null;

/** Starts loading the schemas when a form mounts. */
export function useSchemas() {
  useEffect(() => {
    void import('@/lib/shared/schemas/conversions').then((loaded) => (schemas = loaded)).catch(() => undefined);
  }, []);
}

const errorsOf = (error: { issues: Parameters<typeof issuesToFieldErrors>[0] } | undefined) => issuesToFieldErrors(error?.issues ?? []);

export const createErrors = (body: unknown) => errorsOf(schemas?.createConversionSchema.safeParse(body).error);
export const updateErrors = (changes: unknown) => errorsOf(schemas?.updateConversionSchema.safeParse(changes).error);
