import { createHandler, route } from '@/lib/server/http/createHandler';
import { unauthorized } from '@/lib/server/http/errors';
import { endSession, startSession } from '@/lib/server/http/session';

/** The sync URL: POST with a bearer ID token sets the session cookie, DELETE clears it. */
export default createHandler({
  POST: route({
    access: 'public',
    async handle({ req, res }) {
      const header = req.headers.authorization;
      if (!header?.startsWith('Bearer ')) throw unauthorized();
      await startSession(req, res, header.slice('Bearer '.length).trim());
      return { success: true };
    },
  }),
  DELETE: route({
    access: 'public',
    handle({ req, res }) {
      endSession(req, res);
      return { success: true };
    },
  }),
});
