import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Answer, SentRequest } from '@/tests/contract/case';

/**
 * A recording HTTP proxy between a connector and its fake: every request is recorded as it left the
 * connector (method, path, query, headers, JSON body), then forwarded; the fake's answer comes back
 * with the fake's own address written as the proxy's, so a URL the fake hands out (a page, a report's
 * download) is fetched through the proxy too. While a refusal is armed, the proxy answers with it
 * instead of forwarding: the platform's documented error, without changing the fake.
 */
export interface RecordingProxy {
  url: string;
  /** Every request since the last `clear()`. */
  requests: SentRequest[];
  clear(): void;
  /** Answers every request with `answer` until called with null. */
  refuse(answer: Answer | null): void;
  close(): Promise<void>;
}

/** Bodies that are text, in which the fake's address is rewritten. */
const TEXTUAL = /json|text|html|xml|csv/;

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A JSON body parsed; any other body as its text (a multipart upload, a form). */
function bodyOf(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return null;
  const text = raw.toString('utf8');
  if (!contentType?.includes('json')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Header values as single strings, names lowercased (Node's own form). */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  );
}

function record(req: IncomingMessage, raw: Buffer): SentRequest {
  const url = new URL(req.url ?? '/', 'http://proxy.local');
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: flatHeaders(req.headers),
    body: bodyOf(raw, req.headers['content-type']),
  };
}

function answerWith(res: ServerResponse, answer: Answer) {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'Content-Type': typeof answer.body === 'string' ? 'text/plain' : 'application/json',
    ...answer.headers,
  });
  res.end(text);
}

/** Starts a proxy in front of `target` (the fake platforms' URL) on a free port of 127.0.0.1. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const requests: SentRequest[] = [];
  let refusal: Answer | null = null;
  let self = '';
  const rewrite = (text: string) => text.split(target).join(self);

  async function forward(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    const headers = { ...req.headers, host: upstream.host };
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, resolve);
      out.on('error', reject);
      out.end(raw);
    });
    const body = await readAll(answer);
    const textual = TEXTUAL.test(answer.headers['content-type'] ?? '');
    const sent = textual ? Buffer.from(rewrite(body.toString('utf8'))) : body;
    const kept = Object.entries(answer.headers).filter(([name]) => name !== 'content-length' && name !== 'transfer-encoding');
    res.writeHead(answer.statusCode ?? 502, {
      ...Object.fromEntries(kept.map(([name, value]) => [name, typeof value === 'string' ? rewrite(value) : value!])),
      'content-length': String(sent.length),
    });
    res.end(sent);
  }

  const server = createServer((req, res) => {
    readAll(req)
      .then((raw) => {
        requests.push(record(req, raw));
        return refusal ? answerWith(res, refusal) : forward(req, res, raw);
      })
      .catch((error: unknown) => {
        if (!res.headersSent) answerWith(res, { status: 502, body: { proxyError: String(error) } });
        else res.destroy();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    requests,
    clear: () => requests.splice(0),
    refuse: (answer) => {
      refusal = answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
