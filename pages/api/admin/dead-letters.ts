import { createHandler, route } from '@/lib/server/http/createHandler';
import { countDeadLetters, DEAD_LETTER_COUNT_CAP, deadLettersByOrganization } from '@/lib/server/repos/deadLetters';

/**
 * GET (super admins only): every dead letter counted, in total per queue and per organization
 * (`org: null` when a message names none). Bounded: each total counts up to DEAD_LETTER_COUNT_CAP messages,
 * the split by organization reads as many (`complete: false` when more wait; `npm run dead-letters` reads all).
 */
export default createHandler({
  GET: route({
    access: 'superAdmin',
    async handle() {
      const [total, { byOrganization, complete }] = await Promise.all([
        countDeadLetters(undefined, DEAD_LETTER_COUNT_CAP),
        deadLettersByOrganization(DEAD_LETTER_COUNT_CAP),
      ]);
      return { total, byOrganization, complete };
    },
  }),
});
