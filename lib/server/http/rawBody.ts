import type { NextApiRequest } from 'next';

/** A body past the route's limit, declared or counted. */
export class BodyTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`The request body is larger than ${maxBytes} bytes.`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * The body as the client sent its bytes (a signature is over them; a route that answers in its own envelope
 * parses them itself), for routes whose config turns Next's body parser off. Refused as soon as it passes
 * `maxBytes`, declared or counted, and no longer read: no one makes us buffer 50 MB.
 */
export function readRawBody(req: NextApiRequest, maxBytes: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > maxBytes) return Promise.reject(new BodyTooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) {
        req.off('data', onData);
        reject(new BodyTooLarge(maxBytes));
        return;
      }
      chunks.push(bytes);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
