import { createHandler, route } from '@/lib/server/http/createHandler';

/**
 * GET (public): liveness. The process answers requests: `{ status: 'ok' }`, always 200 and without
 * asking any other service, so a slow Firestore never gets a healthy instance restarted. Whether it can
 * serve is `/api/health/ready`; which service failed and the dead letters waiting are for super admins
 * (`GET /api/admin/health`).
 */
export default createHandler({
  GET: route({
    access: 'public',
    handle: () => ({ status: 'ok' }),
  }),
});
