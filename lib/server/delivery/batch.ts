import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { Ticket } from '@/lib/server/delivery/tickets';

/** One event on its way to one conversion, with its message's ticket and the attempts it had. */
export interface Item {
  event: ConversionEvent;
  ticket: Ticket;
  /** Attempts made before (a batch set aside to wait comes back with them). */
  attempt: number;
}

/** What a conversion has gathered and not yet sent (gathering.ts). */
export interface Gathered {
  orgId: string;
  conversion: Conversion;
  items: Item[];
  timer: NodeJS.Timeout | null;
}

/** Events of one conversion sent in one platform call. */
export interface Batch {
  entry: Gathered;
  items: Item[];
  /** Attempts made (a retry comes back with one more). */
  attempt: number;
}

/** An event of parked events published again (Retry, Reconnect): counted as received when it first came. */
export const isReplay = (item: Item) => item.ticket.message.attributes.replay === 'parked';
