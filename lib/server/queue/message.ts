/** A message pulled from a Pub/Sub subscription, as the pull loop hands it to a worker (queue/pull.ts). */
export interface QueueMessage {
  id: string;
  data: Buffer;
  attributes: Record<string, string>;
  ack(): void;
  /** Gives the message back: at once, or after `delaySeconds` (at most 600). */
  nack(delaySeconds?: number): void;
}
