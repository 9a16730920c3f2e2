import { createHandler, route } from '@/lib/server/http/createHandler';
import { checkHealth } from '@/lib/server/health';

/**
 * GET (public): whether this instance is up: `{ status: 'ok' }` (200) when Firebase Auth and Firestore
 * answer, `{ status: 'down' }` (503) otherwise. Nothing more: which service failed and the dead letters
 * waiting are for super admins (`GET /api/admin/health`).
 */
export default createHandler({
  GET: route({
    access: 'public',
    async handle({ res }) {
      const { auth, firestore } = await checkHealth();
      const up = auth && firestore;
      res.status(up ? 200 : 503).json({ status: up ? 'ok' : 'down' });
    },
  }),
});
