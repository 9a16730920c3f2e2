import type { NextApiRequest } from 'next';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { consumeRateLimits, SUBMISSIONS_PER_KEY } from '@/lib/server/rateLimit';
import { ingest, resolveSubmissionKey } from '@/lib/server/services/ingest';

export const config = { api: { bodyParser: { sizeLimit: '1mb' as const } } };

/** The key of a request: `Authorization: Bearer sbk_…` (server) or `?key=sbp_…` (the website snippet). */
function keyOf(req: NextApiRequest): string {
  const header = req.headers.authorization ?? '';
  if (header.startsWith('Bearer ')) return header.slice(7).trim();
  return typeof req.query.key === 'string' ? req.query.key : '';
}

/** The snippet posts text/plain (no CORS preflight); its text is the JSON body. */
function jsonBody(req: NextApiRequest): unknown {
  if (typeof req.body !== 'string') return req.body;
  try {
    return JSON.parse(req.body);
  } catch {
    throw new ApiError(400, 'invalid_request', 'The body is not JSON.');
  }
}

/**
 * POST /api/submissions — conversion events of an app: one event, or `{events: [...]}` (≤ 500).
 * Personal identifiers are hashed before the events are queued for delivery; 202 with each event's
 * id. A secret key (`sbk_`) works from servers; a publishable key (`sbp_`, in the website snippet)
 * only from the app's own website origin. 401 unknown key, 403 wrong origin, 400 naming the field,
 * 413 over 1 MB, 429 with Retry-After beyond the key's rate.
 */
export default createHandler({
  POST: route({
    access: 'public',
    async handle({ req, res }) {
      const key = keyOf(req);
      const owner = /^sb[kp]_[\w-]+$/.test(key) ? await resolveSubmissionKey(key) : null;
      if (!owner)
        throw new ApiError(
          401,
          'invalid_key',
          'Send a valid submission key as Authorization: Bearer sbk_… (or ?key=sbp_… from your website).',
        );
      const origin = typeof req.headers.origin === 'string' ? req.headers.origin : null;
      if (owner.kind === 'publishable') {
        if (!origin || origin !== owner.origin) throw new ApiError(403, 'origin_not_allowed', "This key only works on the app's website.");
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Vary', 'Origin');
      }
      // Counted per key after the lookup, so unknown keys cannot make us write counters.
      await consumeRateLimits([{ rule: SUBMISSIONS_PER_KEY, key }]);
      const forwarded = String(req.headers['x-forwarded-for'] ?? '')
        .split(',')[0]
        ?.trim();
      // A browser's own address and agent describe the person; a server's describe the server.
      const browser =
        owner.kind === 'publishable' ? { ip: forwarded || req.socket.remoteAddress, userAgent: req.headers['user-agent'] } : {};
      const { batch, results } = await ingest(owner, jsonBody(req), browser);
      const first = results[0]!;
      res.status(202).json(
        batch
          ? { success: true, accepted: results.filter((result) => 'id' in result).length, results }
          : {
              success: true,
              id: 'id' in first ? first.id : null,
              ...('warnings' in first && first.warnings ? { warnings: first.warnings } : {}),
            },
      );
      return undefined;
    },
  }),
});
