/** A stored or received value as text: a non-empty string, else null (a missing id, an empty field, a wrong type). */
export const textOrNull = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);
