import type { Conversion } from '@/lib/shared/conversions/conversion';
import { isReplay } from '@/lib/server/delivery/batch';
import { deliverBatch, RetryLater } from '@/lib/server/delivery/deliver';
import type { SendBatch } from '@/lib/server/delivery/lanes';
import type { FairQuota } from '@/lib/server/delivery/quota';
import { setAsideFailed, type SetAsideDeps } from '@/lib/server/delivery/setAside';
import { errorFields, eventIdsOf, labels, log } from '@/lib/server/log';
import type { CounterSink } from '@/lib/server/repos/deliveryLog';

export interface SenderOptions extends SetAsideDeps {
  /** Reads a conversion again just before its batch is sent (none: it was deleted). */
  byId: (orgId: string, id: string) => Promise<Conversion[]>;
  deliver: typeof deliverBatch;
  /** Where delivery counters are summed before they are written (none: each record writes its own). */
  sink: CounterSink | undefined;
  /** The fair quotas of platforms whose quota every tenant shares (quota.ts), by platform. */
  quotas: Map<string, FairQuota>;
}

/**
 * Sends one batch and settles its messages' events: delivered or refused, recorded (deliver.ts); the conversion
 * deleted, dropped; its outcome not recorded, set aside (setAside.ts). A transient failure with attempts left
 * comes back as the batch to retry and when.
 */
export function createSender(options: SenderOptions): SendBatch {
  const { byId, deliver, sink, quotas, settle } = options;
  return async (batch, clock) => {
    const { entry, items } = batch;
    try {
      // Read again just before sending (one read a batch): a conversion deleted since it was cached sends nothing.
      const [current] = await byId(entry.orgId, entry.conversion.id);
      if (!current) {
        log.info(
          { component: 'worker', ...labels({ org: entry.orgId, conversion: entry.conversion.id }), count: items.length },
          'events of a deleted conversion not sent',
        );
        items.forEach((item) => settle(item.ticket, true));
        return null;
      }
      const quota = quotas.get(current.destination.platform);
      await deliver(
        entry.orgId,
        current,
        items.map((item) => item.event),
        {
          attempt: batch.attempt,
          deferRetries: true,
          counters: sink,
          replayed: new Set(items.filter(isReplay).map((item) => item.event.id)),
          // The send clock runs only while the platform is asked: reading the conversion or the login, or waiting for
          // the shared quota's turn (Data Manager), is no sign the platform is in trouble.
          beforeSend: async () => {
            clock.pause();
            if (quota) await quota.take(entry.orgId);
            clock.resume();
          },
          afterSend: clock.answered,
        },
      );
      items.forEach((item) => settle(item.ticket, true));
    } catch (error) {
      if (error instanceof RetryLater) return { batch: { ...batch, attempt: batch.attempt + 1 }, delayMs: error.delayMs };
      log.error(
        {
          component: 'worker',
          ...labels({ org: entry.orgId, conversion: entry.conversion.id }),
          ...eventIdsOf(items.map((item) => item.event)),
          ...errorFields(error),
        },
        'delivery not recorded; its events go back on the queue',
      );
      await setAsideFailed(entry, items, options);
    }
    return null;
  };
}
