import { createConversionSchema, updateConversionSchema } from '@/lib/shared/conversions/conversion';

/** The handler's own schemas, checked before sending; errors keyed like the server's 400 ('mapping.value.amount'). */

type Issues = { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> };

function errorsOf(error: Issues | undefined): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of error?.issues ?? []) {
    const key = issue.path.map(String).join('.') || '_';
    (errors[key] ??= []).push(issue.message);
  }
  return errors;
}

export const createErrors = (body: unknown) => errorsOf(createConversionSchema.safeParse(body).error);
export const updateErrors = (changes: unknown) => errorsOf(updateConversionSchema.safeParse(changes).error);
