/**
 * `@google-cloud/bigquery` sends every request through teeny-request, which loads node-fetch 3 with a
 * dynamic `import()` that Jest (CommonJS, without --experimental-vm-modules) cannot run. In API tests
 * (the handlers and the services run in-process) this twin on Node's own fetch stands in for it. It
 * speaks the same contract: query string, JSON or multipart/related body, and `callback(error,
 * response, body)` with a JSON body parsed. Plain Node (the app, the workers) uses the real one.
 */
import { randomUUID } from 'node:crypto';

interface TeenyOptions {
  uri?: string;
  url?: string;
  method?: string;
  qs?: Record<string, unknown>;
  json?: unknown;
  body?: unknown;
  headers?: HeadersInit;
  multipart?: Array<{ 'Content-Type': string; body: string | AsyncIterable<Buffer | string> }>;
}
type TeenyCallback = (error: Error | null, response: unknown, body: unknown) => void;

/** A callback-mode twin of teeny-request on Node's own fetch (see the top of this file). */
function mockTeenyRequest() {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { stringify } = require('node:querystring') as typeof import('node:querystring');
  async function send(options: TeenyOptions) {
    let uri = options.uri ?? options.url ?? '';
    if (options.qs) uri += `?${stringify(options.qs as Record<string, string>)}`;
    const headers = new Headers(options.headers);
    let body: string | Buffer | undefined;
    if (options.multipart) {
      const boundary = randomUUID();
      const chunks: Buffer[] = [];
      for (const part of options.multipart) {
        chunks.push(Buffer.from(`--${boundary}\r\nContent-Type: ${part['Content-Type']}\r\n\r\n`));
        if (typeof part.body === 'string') chunks.push(Buffer.from(part.body));
        else for await (const chunk of part.body) chunks.push(Buffer.from(chunk));
        chunks.push(Buffer.from('\r\n'));
      }
      chunks.push(Buffer.from(`--${boundary}--`));
      body = Buffer.concat(chunks);
      headers.set('Content-Type', `multipart/related; boundary=${boundary}`);
    } else if (options.json !== undefined && typeof options.json === 'object') {
      body = JSON.stringify(options.json);
      headers.set('Content-Type', 'application/json');
    } else if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
      body = options.body;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
    }
    const response = await fetch(uri, {
      method: options.method ?? 'GET',
      headers,
      ...(body !== undefined ? { body: new Uint8Array(typeof body === 'string' ? Buffer.from(body) : body) } : {}),
    });
    const text = await response.text();
    const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json') && text !== '';
    const parsed: unknown = isJson ? JSON.parse(text) : text;
    return {
      response: {
        statusCode: response.status,
        statusMessage: response.statusText,
        headers: Object.fromEntries(response.headers),
        body: parsed,
        request: { href: uri },
      },
      body: parsed,
    };
  }
  function teenyRequest(options: TeenyOptions, callback?: TeenyCallback) {
    if (!callback) throw new Error('mockTeenyRequest: stream mode is not supported');
    send(options).then(
      ({ response, body }) => callback(null, response, body),
      (error: Error) => callback(error, null, null),
    );
    return { abort() {} };
  }
  teenyRequest.defaults = (defaults: TeenyOptions) => (options: TeenyOptions, callback?: TeenyCallback) =>
    teenyRequest({ ...defaults, ...options }, callback);
  return { teenyRequest, RequestError: Error };
}

jest.mock('teeny-request', () => mockTeenyRequest());
