import { createHandler, route } from '@/lib/server/http/createHandler';
import { checkReadiness } from '@/lib/server/health';

/**
 * GET (public): readiness. `{ status: 'ready' }` (200) when Firestore and Pub/Sub answer within a few
 * seconds, `{ status: 'not_ready' }` (503) otherwise, for the load balancer's or Cloud Run's startup probe.
 * Which one failed is not said here (`GET /api/admin/health` says it to super admins).
 */
export default createHandler({
  GET: route({
    access: 'public',
    async handle({ res }) {
      const { firestore, pubsub } = await checkReadiness();
      const ready = firestore && pubsub;
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready' });
    },
  }),
});
