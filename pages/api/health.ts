import { createHandler, route } from '@/lib/server/http/createHandler';
import { checkHealth } from '@/lib/server/health';

export default createHandler({
  GET: route({
    access: 'public',
    async handle({ res }) {
      const services = await checkHealth();
      const ok = services.auth && services.firestore;
      res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', services });
    },
  }),
});
