import { z } from 'zod';
import { documentIdSchema } from '@/lib/shared/schemas/ids';

/** Providers may leave a name or photo empty; we store empty strings, never null. */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, 'Too long')
    .nullish()
    .transform((value) => value ?? '');

export const getOrSaveUserSchema = z.object({
  email: z.email('Enter a valid email address'),
  fullName: optionalText(200),
  uid: documentIdSchema,
  photoURL: optionalText(2048),
});

export const getUserSchema = z.object({ userId: documentIdSchema });

export type GetOrSaveUserInput = z.infer<typeof getOrSaveUserSchema>;
