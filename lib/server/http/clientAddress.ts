import type { NextApiRequest } from 'next';

/** The caller's address: the first of X-Forwarded-For (set by the load balancer), else the socket's. */
export function clientAddress(req: NextApiRequest): string | undefined {
  const forwarded = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')[0]
    ?.trim();
  return forwarded || req.socket.remoteAddress;
}
