import { z } from 'zod';

/** Firestore reserves ids that start and end with two underscores. */
const RESERVED_ID = /^__[\s\S]*__$/;

/**
 * The one rule for an id a request names (a route segment, a query or body field): 1–128
 * characters, no slash, not `.` or `..`, not Firestore-reserved (`__…__`). Anything else would make
 * Firestore throw, or point at another path, instead of answering "not found".
 */
export const documentIdSchema = z
  .string()
  .min(1, 'Required')
  .max(128, 'At most 128 characters')
  .refine((id) => !id.includes('/') && id !== '.' && id !== '..' && !RESERVED_ID.test(id), 'Not a valid id');

/** Whether a value is an id by the rule above. */
export const isDocumentId = (value: unknown): value is string => documentIdSchema.safeParse(value).success;
