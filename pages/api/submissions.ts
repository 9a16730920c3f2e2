import { z } from 'zod';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { consumeRateLimits, SUBMISSIONS_PER_KEY } from '@/lib/server/rateLimit';
import { appOfSubmissionKey, recordSubmission } from '@/lib/server/repos/apps';

const submissionSchema = z.object({
  event: z.string().trim().min(1, 'Name the event').max(100),
  eventId: z.string().trim().max(200).optional(),
  occurredAt: z.iso.datetime({ offset: true }).optional(),
  email: z.email('Not an email address').max(320).optional(),
  phone: z.string().trim().max(40).optional(),
  value: z.number().nonnegative().max(1e9).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'A three-letter currency code').optional(),
  gclid: z.string().max(200).optional(),
  fbclid: z.string().max(500).optional(),
  msclkid: z.string().max(200).optional(),
  pageUrl: z.string().max(2000).optional(),
});

/**
 * POST /api/submissions — an app's custom submission (a form sent, a sign-up), authorized by the
 * app's key as `Authorization: Bearer sbk_…`. Stored for the conversions pipeline; 202 when accepted,
 * 429 with Retry-After beyond the key's rate limit.
 */
export default createHandler({
  POST: route({
    access: 'public',
    body: submissionSchema,
    async handle({ req, res, body }) {
      const header = req.headers.authorization ?? '';
      const key = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
      const app = key ? await appOfSubmissionKey(key) : null;
      if (!app) throw new ApiError(401, 'invalid_key', 'Send a valid submission key as Authorization: Bearer sbk_…');
      // Counted per key after the lookup, so unknown keys cannot make us write counters.
      await consumeRateLimits([{ rule: SUBMISSIONS_PER_KEY, key }]);
      const id = await recordSubmission(app.orgId, app.appId, body);
      res.status(202).json({ success: true, id });
      return undefined;
    },
  }),
});
