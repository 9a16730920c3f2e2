import type { QueueMessage } from '@/lib/server/queue/message';

/**
 * A message in the router's hands: acknowledged once every event it brought has been recorded by every
 * conversion it went to (and every filtered-out note written), or left unacknowledged when one of them failed.
 */
export interface Ticket {
  message: QueueMessage;
  /** Outcomes still to come: one per event routed, one per filtered-out note. */
  remaining: number;
  failed: boolean;
}

/** Settles one outcome of a ticket's message (`ok`: recorded, or published again to be sent later). */
export type Settle = (ticket: Ticket, ok: boolean) => void;

/**
 * The messages in flight, so a drain can wait for the last of them: a message routed somewhere is opened
 * here, and leaves once its ticket is settled (acked or nacked).
 */
export function createTicketBook() {
  let inFlight = 0;
  const idle: Array<() => void> = [];

  const settle: Settle = (ticket, ok) => {
    if (!ok) ticket.failed = true;
    ticket.remaining -= 1;
    if (ticket.remaining > 0) return;
    if (ticket.failed) ticket.message.nack();
    else ticket.message.ack();
    inFlight -= 1;
    if (inFlight === 0) idle.splice(0).forEach((resolve) => resolve());
  };

  return {
    /** A message whose events went somewhere: in flight until its ticket is settled. */
    open() {
      inFlight += 1;
    },
    settle,
    /** Resolves once no message is in flight. */
    async idle(): Promise<void> {
      if (inFlight > 0) await new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
