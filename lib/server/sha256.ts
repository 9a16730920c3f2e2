import * as crypto from 'node:crypto';

/**
 * SHA-256 of a text, as hex: Node's one-shot hash (20.12+) where it exists, about a third of createHash's
 * cost. Used where it runs per row or per event (identifiers at ingest, Mixpanel insert ids, rate-limit
 * keys); a one-off hash may use createHash as it likes.
 */
export const sha256Hex: (value: string) => string =
  typeof crypto.hash === 'function'
    ? (value) => crypto.hash('sha256', value, 'hex')
    : (value) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');
