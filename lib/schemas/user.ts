import { z } from 'zod';

const uidSchema = z.string().trim().min(1, 'Required').max(128, 'Too long');

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
  uid: uidSchema,
  photoURL: optionalText(2048),
});

export const getUserSchema = z.object({ userId: uidSchema });

export type GetOrSaveUserInput = z.infer<typeof getOrSaveUserSchema>;
