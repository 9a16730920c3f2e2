/**
 * A fake of Customer.io's transactional email API (POST /v1/send/email) that checks what the real
 * one checks: the app API key as a bearer token, a JSON body, a recipient, exactly one identifier
 * and a template (transactional_message_id) or an inline message. It records what it accepts.
 * GET /__fake/messages lists them (newest last); DELETE clears.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedEmail {
  deliveryId: string;
  to: string;
  transactionalMessageId: string | number | undefined;
  identifiers: Record<string, string>;
  messageData: Record<string, unknown>;
}

export interface FakeCustomerIo {
  url: string;
  apiKey: string;
  messages: RecordedEmail[];
  close: () => Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const fail = (res: ServerResponse, status: number, error: string) => send(res, status, { meta: { error } });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validate(body: Record<string, unknown>): string | null {
  if (typeof body.to !== 'string' || !EMAIL.test(body.to)) return 'to: a valid email address is required';
  const identifiers = body.identifiers;
  if (!identifiers || typeof identifiers !== 'object') return 'identifiers is required';
  const keys = Object.keys(identifiers).filter((key) => (identifiers as Record<string, unknown>)[key] !== undefined);
  if (keys.length !== 1 || !['id', 'email', 'cio_id'].includes(keys[0]!)) {
    return 'identifiers must contain exactly one of id, email or cio_id';
  }
  const template = body.transactional_message_id;
  const inline = typeof body.body === 'string' && typeof body.subject === 'string' && typeof body.from === 'string';
  if (template === undefined && !inline) return 'transactional_message_id, or body, subject and from, are required';
  if (template !== undefined && typeof template !== 'string' && typeof template !== 'number') {
    return 'transactional_message_id must be a string or a number';
  }
  if (body.message_data !== undefined && (typeof body.message_data !== 'object' || body.message_data === null)) {
    return 'message_data must be an object';
  }
  return null;
}

export async function startFakeCustomerIo({ apiKey = 'fake-customerio-app-key', port = 0 } = {}): Promise<FakeCustomerIo> {
  const messages: RecordedEmail[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/__fake/messages') {
      if (req.method === 'DELETE') messages.length = 0;
      return send(res, 200, { messages });
    }
    if (url.pathname !== '/v1/send/email') return fail(res, 404, 'Not found');
    if (req.method !== 'POST') return fail(res, 405, 'Method not allowed');
    if (req.headers.authorization !== `Bearer ${apiKey}`) return fail(res, 401, 'Unauthorized request');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return fail(res, 400, 'Request body must be valid JSON');
    }
    const problem = validate(body);
    if (problem) return fail(res, 400, problem);
    const deliveryId = randomUUID();
    messages.push({
      deliveryId,
      to: body.to as string,
      transactionalMessageId: body.transactional_message_id as string | number | undefined,
      identifiers: body.identifiers as Record<string, string>,
      messageData: (body.message_data as Record<string, unknown>) ?? {},
    });
    send(res, 200, { delivery_id: deliveryId, queued_at: Math.floor(Date.now() / 1000) });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    apiKey,
    messages,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The environment that points the app at this fake. */
export function customerIoEnv(fake: FakeCustomerIo): Record<string, string> {
  return {
    CUSTOMERIO_API_URL: `${fake.url}/v1`,
    CUSTOMERIO_APP_API_KEY: fake.apiKey,
    CUSTOMERIO_INVITATION_MESSAGE_ID: 'invitation',
  };
}
