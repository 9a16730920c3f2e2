/**
 * How every local server of the sandbox listens: Customer.io, Stripe and the ad and analytics
 * platforms, and whatever comes next.
 *
 * Why the keep-alive settings: our clients pool connections (Playwright's request context, the Stripe
 * SDK and Node's fetch all keep sockets alive). Node's server closes an idle connection after 5 s and
 * says so in a `Keep-Alive: timeout=5` hint; a client retires its socket about a second before that.
 * On a busy machine a client's event loop can lag by more than that second, reuse the socket as the
 * server closes it, and fail with ECONNRESET. Idle connections that live for minutes move that race
 * far past any gap between two calls of a test run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long an idle keep-alive connection stays open (advertised to clients in the Keep-Alive hint). */
export const KEEP_ALIVE_MS = 10 * 60 * 1000;

export interface Served {
  server: Server;
  url: string;
  close: () => Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * Serves `handler` on 127.0.0.1 (`port` 0: any free port). A handler that throws or rejects answers
 * 500 through `onError` instead of taking the process down; `close()` also ends idle connections.
 */
export async function serve(
  name: string,
  handler: Handler,
  { port = 0, onError }: { port?: number; onError?: (res: ServerResponse) => void } = {},
): Promise<Served> {
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((error: unknown) => {
        console.error(`[${name}]`, error);
        if (res.headersSent) return res.destroy();
        if (onError) return onError(res);
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: 'internal' }));
      });
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The whole request body as text: the fakes parse forms and JSON themselves, as each platform does. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Text made safe for the sandbox's HTML pages (consent screens, checkout, portal). */
export const escapeHtml = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A JSON answer, as the ad and analytics platforms send it (UTF-8, plus any headers they add). */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** Resolves once the response can take more (drained) or never will (closed), leaving no listener behind. */
export function writable(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
