import { isIP } from 'node:net';
import type { NextApiRequest, PageConfig } from 'next';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { clientAddress } from '@/lib/server/http/clientAddress';
import { BodyTooLarge, readRawBody } from '@/lib/server/http/rawBody';
import { admitSubmissions } from '@/lib/server/limits/submissionLimits';
import { ingest, originAllowed, resolveSubmissionKey } from '@/lib/server/services/ingest';
import { MAX_EVENTS_PER_REQUEST, MAX_USER_AGENT } from '@/lib/shared/schemas/submissions';
import { MAX_SUBMISSION_BYTES, SUBMISSION_MESSAGES } from '@/lib/shared/schemas/submissionFields';

// The body is read here, not by Next: a body too large or not JSON is answered in our JSON envelope.
export const config: PageConfig = { api: { bodyParser: false } };

// The rest of the body is not read: the connection closes after the answer.
const tooLarge = () =>
  new ApiError(413, 'body_too_large', SUBMISSION_MESSAGES.tooLarge, undefined, {
    Connection: 'close',
  });

/**
 * The key of a request: `Authorization: Bearer sbk_…` (server) or `?key=sbp_…` (the website snippet).
 * A secret key in the URL is refused, not used: URLs end up in logs, histories and referrers.
 */
function keyOf(req: NextApiRequest): string {
  const header = req.headers.authorization ?? '';
  if (header.startsWith('Bearer ')) return header.slice(7).trim();
  const key = typeof req.query.key === 'string' ? req.query.key : '';
  if (key.startsWith('sbk_'))
    throw new ApiError(
      401,
      'secret_key_in_url',
      'A secret key only works in the Authorization header (Bearer sbk_…); only the publishable key (sbp_…) goes in the URL. Replace this key: it has been exposed.',
    );
  return key;
}

/** The raw body as text, refused as soon as it passes the limit (declared or counted). */
const rawBody = (req: NextApiRequest) =>
  readRawBody(req, MAX_SUBMISSION_BYTES).then(
    (bytes) => bytes.toString('utf8'),
    (error: unknown) => Promise.reject(error instanceof BodyTooLarge ? tooLarge() : error),
  );

/** The body as JSON, whether sent as application/json or as text/plain (the snippet: no CORS preflight). */
async function jsonBody(req: NextApiRequest): Promise<object> {
  // Served without this file's config (a test's server), Next has parsed the body already.
  const parsed: unknown = req.body;
  const text = parsed === undefined ? await rawBody(req) : typeof parsed === 'string' ? parsed : JSON.stringify(parsed);
  if (text.trim() === '') throw new ApiError(400, 'invalid_request', 'The body is empty: send one event as JSON, or {"events": [...]}.');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_request', 'The body is not JSON: send one event as JSON, or {"events": [...]}.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(400, 'invalid_request', 'Send one event as a JSON object, e.g. {"event": "Lead"}, or {"events": [...]}.');
  return body;
}

/**
 * How many events a body holds for the rate limit: a batch's list (at least 1, at most what a request may
 * carry: a list of half a million zeros is refused as a whole, and must not spend the key's budget for a
 * minute on every instance), else one.
 */
function eventsIn(body: object): number {
  const events = (body as { events?: unknown }).events;
  return Array.isArray(events) ? Math.min(MAX_EVENTS_PER_REQUEST, Math.max(1, events.length)) : 1;
}

/**
 * POST /api/submissions — conversion events of an app: one event, or `{events: [...]}` (≤ 500).
 * Personal identifiers are hashed before the events are queued for delivery; 202 with each event's
 * id. A secret key (`sbk_`) works from servers, in the Authorization header only; a publishable key
 * (`sbp_`, in the website snippet) only from the app's own website origin. 401 unknown key or a secret
 * key in the URL, 403 wrong origin, 400 naming the field or saying the body is no JSON, 413 over 1 MB,
 * 429 with Retry-After beyond the key's rate (the plan's events a second) or, for a publishable key, one
 * address's; every refusal in the JSON error envelope.
 */
export default createHandler({
  POST: route({
    access: 'public',
    async handle({ req, res }) {
      const key = keyOf(req);
      const owner = /^sb[kp]_[\w-]+$/.test(key) ? await resolveSubmissionKey(key) : null;
      if (!owner) throw new ApiError(401, 'invalid_key', SUBMISSION_MESSAGES.invalidKey);
      const origin = typeof req.headers.origin === 'string' ? req.headers.origin : null;
      if (owner.kind === 'publishable') {
        if (!origin || !originAllowed(origin, owner.origin))
          throw new ApiError(403, 'origin_not_allowed', "This key only works on the app's website.");
        res.setHeader('Access-Control-Allow-Origin', origin);
        res.setHeader('Vary', 'Origin');
      }
      const address = clientAddress(req);
      // A browser's own address and agent describe the person; a server's describe the server. Headers are not
      // checked as a body is: an address that is no IP is left out, an agent cut to what the queue keeps.
      const browser =
        owner.kind === 'publishable'
          ? { ip: address && isIP(address) ? address : undefined, userAgent: req.headers['user-agent']?.slice(0, MAX_USER_AGENT) }
          : {};
      const body = await jsonBody(req);
      // Counted in events, per key after the lookup (unknown keys count nothing), before anything is queued.
      admitSubmissions({
        key,
        planPerSecond: owner.perSecond,
        events: eventsIn(body),
        address: owner.kind === 'publishable' ? (address ?? 'unknown') : undefined,
      });
      const { batch, results } = await ingest(owner, body, browser);
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
