/**
 * The one rule for an id a request names (a route segment, a query or body field): 1–128
 * characters, no slash, not `.` or `..`, not Firestore-reserved (`__…__`). Anything else would make
 * Firestore throw, or point at another path, instead of answering "not found". Plain code, no zod:
 * the navigation guard of every page uses it.
 */
export const DOCUMENT_ID_MAX_LENGTH = 128;

/** Firestore reserves ids that start and end with two underscores. */
const RESERVED_ID = /^__[\s\S]*__$/;

/** Whether the characters of a (length-checked) id are allowed. */
export const hasDocumentIdShape = (id: string) => !id.includes('/') && id !== '.' && id !== '..' && !RESERVED_ID.test(id);

/** Whether a value is an id by the rule above. */
export const isDocumentId = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= DOCUMENT_ID_MAX_LENGTH && hasDocumentIdShape(value);
