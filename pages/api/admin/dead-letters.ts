import { createHandler, route } from '@/lib/server/http/createHandler';
import { countDeadLetters, deadLettersByOrganization } from '@/lib/server/repos/deadLetters';

/**
 * GET (super admins only): every dead letter counted, in total per queue and per organization
 * (`org: null` when a message names none).
 */
export default createHandler({
  GET: route({
    access: 'superAdmin',
    async handle() {
      const [total, byOrganization] = await Promise.all([countDeadLetters(), deadLettersByOrganization()]);
      return { total, byOrganization };
    },
  }),
});
