import type { NextApiRequest } from 'next';

/**
 * The caller's address, as the proxy in front of the app saw it. Each proxy appends the address it was
 * reached from to X-Forwarded-For, so only the last TRUSTED_PROXY_HOPS entries were written by ours; what
 * comes before them is whatever the client sent, and a per-address limit keyed on it could be dodged with a
 * new made-up address each request. Cloud Run appends one entry (1, the default); an external load balancer
 * in front of it another (2). 0: no proxy, the socket's address.
 */
export function clientAddress(req: NextApiRequest): string | undefined {
  const hops = Number(process.env.TRUSTED_PROXY_HOPS ?? 1);
  const forwarded = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (hops === 0 || forwarded.length === 0) return req.socket.remoteAddress;
  return forwarded[Math.max(0, forwarded.length - hops)];
}
