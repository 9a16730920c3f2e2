import { createHandler, route } from '@/lib/server/http/createHandler';
import { checkHealth } from '@/lib/server/health';
import { countDeadLetters } from '@/lib/server/repos/deadLetters';

export default createHandler({
  GET: route({
    access: 'public',
    async handle({ res }) {
      const services = await checkHealth();
      const ok = services.auth && services.firestore;
      // Dead letters are reported, not a failure of this instance: null when they cannot be counted.
      const deadLetters = ok
        ? await countDeadLetters().then(
            ({ conversions, sync }) => ({ conversions: conversions.messages, sync: sync.messages }),
            () => null,
          )
        : null;
      res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', services, deadLetters });
    },
  }),
});
