import { createHmac } from 'node:crypto';

/** Intercom identity verification: HMAC-SHA256 of the user id with the workspace's secret, hex. */
export function intercomUserHash(secret: string, userId: string): string {
  return createHmac('sha256', secret).update(userId).digest('hex');
}
