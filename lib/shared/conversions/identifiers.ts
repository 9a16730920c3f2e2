/** Identifiers a conversion may send (each only when the event has it). */
export const IDENTIFIERS = ['email', 'phone', 'name', 'address', 'dateOfBirth', 'gender', 'externalId', 'clickIds', 'context'] as const;
export type Identifier = (typeof IDENTIFIERS)[number];
