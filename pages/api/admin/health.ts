import { createHandler, route } from '@/lib/server/http/createHandler';
import { checkServices } from '@/lib/server/health';
import { countDeadLetters, DEAD_LETTER_COUNT_CAP } from '@/lib/server/repos/deadLetters';

/**
 * GET (super admins only): the detail the public `/api/health` leaves out: which services answer, and the
 * dead-letter messages waiting per queue, counted up to DEAD_LETTER_COUNT_CAP each (`countedUpTo`: a count
 * equal to it means at least that many); null when they cannot be counted.
 */
export default createHandler({
  GET: route({
    access: 'superAdmin',
    async handle() {
      const services = await checkServices();
      const up = services.auth && services.firestore && services.pubsub;
      // Dead letters are reported, not a failure of this instance.
      const deadLetters = services.firestore
        ? await countDeadLetters(undefined, DEAD_LETTER_COUNT_CAP).then(
            ({ conversions, sync }) => ({ conversions: conversions.messages, sync: sync.messages, countedUpTo: DEAD_LETTER_COUNT_CAP }),
            () => null,
          )
        : null;
      return { status: up ? 'ok' : 'down', services, deadLetters };
    },
  }),
});
