/**
 * Publishing conversion messages by group commit. At most `inFlight` Publish requests are under way; while
 * they are, small publishes of the same attributes (one organization's source, or one conversion's replay)
 * are gathered into one message, and what gathered goes out in one request as soon as a request answers.
 * A lone publish waits for nobody: the end of the event loop's turn that made it (setImmediate), so the
 * requests parsed in that turn travel together. Under a flood the messages grow with the load (up to
 * `maxEvents`), so Pub/Sub, the publisher and the worker's Pulls and acks handle one message for many
 * events, and the Publish requests do not grow in number.
 *
 * Every caller resolves only once the messages holding its events are published (a 202 means "durably
 * queued"), and a failed publish fails every caller whose events it held.
 */

export interface OutgoingMessage {
  data: Buffer;
  attributes: Record<string, string>;
}

export interface GroupCommitOptions {
  /** Publish requests under way at once. */
  inFlight: number;
  /** A message's events at most, and its bytes (an event larger than that alone travels alone). */
  maxEvents: number;
  maxBytes: number;
  /** Pub/Sub takes at most 1,000 messages and 10 MB in one Publish request. */
  requestMessages?: number;
  requestBytes?: number;
}

/** A message being filled (or full, waiting its turn): its events' JSON texts and their bytes, and its callers. */
interface Message {
  attributes: Record<string, string>;
  texts: string[];
  /** UTF-8 bytes so far: the brackets and commas included. */
  bytes: number;
  published: Promise<void>;
  settle: { resolve: () => void; reject: (error: unknown) => void };
}

function newMessage(attributes: Record<string, string>): Message {
  let settle!: Message['settle'];
  const published = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  return { attributes, texts: [], bytes: 1, published, settle };
}

const encode = (message: Message): OutgoingMessage => ({
  data: Buffer.from(`[${message.texts.join(',')}]`),
  attributes: { ...message.attributes, events: String(message.texts.length) },
});

/** Publishes with `send` (one Publish request of the given messages). */
export function groupCommit(
  send: (messages: OutgoingMessage[]) => Promise<void>,
  { inFlight, maxEvents, maxBytes, requestMessages = 1000, requestBytes = 9_000_000 }: GroupCommitOptions,
) {
  /** Messages still taking events, by their attributes' key. */
  const open = new Map<string, Message>();
  /** Messages that take no more events, in order, before the open ones. */
  let closed: Message[] = [];
  let sending = 0;
  let scheduled = false;

  /** The next request's messages: closed ones first, then the open ones, as many as fit (one at least). */
  function takeRequest(): Message[] {
    const candidates = [...closed, ...open.values()];
    const taken: Message[] = [];
    let bytes = 0;
    for (const message of candidates) {
      if (taken.length === requestMessages || (taken.length > 0 && bytes + message.bytes > requestBytes)) break;
      taken.push(message);
      bytes += message.bytes;
    }
    closed = closed.filter((message) => !taken.includes(message));
    for (const [key, message] of open) if (taken.includes(message)) open.delete(key);
    return taken;
  }

  function pump() {
    scheduled = false;
    while (sending < inFlight && (closed.length > 0 || open.size > 0)) {
      const messages = takeRequest();
      sending += 1;
      send(messages.map(encode))
        .then(
          () => messages.forEach((message) => message.settle.resolve()),
          (error: unknown) => messages.forEach((message) => message.settle.reject(error)),
        )
        .finally(() => {
          sending -= 1;
          schedule();
        });
    }
  }

  /** A request leaves at the end of this turn of the event loop, when one may. */
  function schedule() {
    if (scheduled || sending >= inFlight || (closed.length === 0 && open.size === 0)) return;
    scheduled = true;
    setImmediate(pump);
  }

  /** Adds `texts` (events as JSON) to the message of `key`, starting another when it is full; resolves with their publish. */
  function gather(key: string, attributes: Record<string, string>, texts: string[]): Promise<void> {
    const touched = new Set<Message>();
    for (const text of texts) {
      const size = Buffer.byteLength(text) + 1;
      let message = open.get(key);
      if (message && (message.texts.length === maxEvents || (message.texts.length > 0 && message.bytes + size > maxBytes))) {
        closed.push(message);
        open.delete(key);
        message = undefined;
      }
      if (!message) {
        message = newMessage(attributes);
        open.set(key, message);
      }
      message.texts.push(text);
      message.bytes += size;
      touched.add(message);
    }
    schedule();
    return Promise.all([...touched].map((message) => message.published)).then(() => undefined);
  }

  /** A message of its own (a large publish): not joined by others, in order with them. */
  function alone(attributes: Record<string, string>, texts: string[]): Promise<void> {
    const message = newMessage(attributes);
    message.texts = texts;
    message.bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text) + 1, 1);
    closed.push(message);
    schedule();
    return message.published;
  }

  return { gather, alone };
}
