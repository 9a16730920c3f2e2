/**
 * A fake of Customer.io that checks what the real one checks, and records what it accepts:
 * - the transactional App API, POST /v1/send/email: the app API key as a bearer token, a JSON body,
 *   a recipient, exactly one identifier, a template id or an inline message;
 * - the Track API, PUT /api/v1/customers/{id} (identify) and POST /api/v1/customers/{id}/events:
 *   Basic auth with site id and API key, a JSON object, an event name.
 * GET /__fake/messages, /__fake/people and /__fake/events list what came in (newest last).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, serve } from '@/sandbox/server';

export interface RecordedEmail {
  deliveryId: string;
  to: string;
  transactionalMessageId: string | number | undefined;
  identifiers: Record<string, string>;
  messageData: Record<string, unknown>;
}

export interface RecordedEvent {
  customerId: string;
  name: string;
  data: Record<string, unknown>;
}

export interface FakeCustomerIo {
  url: string;
  apiKey: string;
  siteId: string;
  trackApiKey: string;
  messages: RecordedEmail[];
  people: Record<string, Record<string, unknown>>;
  events: RecordedEvent[];
  close: () => Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const fail = (res: ServerResponse, status: number, error: string) => send(res, status, { meta: { error } });

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

const TRACK_PATH = /^\/api\/v1\/customers\/([^/]+)(\/events)?$/;

async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  try {
    const value = JSON.parse(await readBody(req));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export async function startFakeCustomerIo({
  apiKey = 'fake-customerio-app-key',
  siteId = 'fake-site-id',
  trackApiKey = 'fake-track-api-key',
  port = 0,
} = {}): Promise<FakeCustomerIo> {
  const messages: RecordedEmail[] = [];
  const people: Record<string, Record<string, unknown>> = {};
  const events: RecordedEvent[] = [];
  const trackAuth = `Basic ${Buffer.from(`${siteId}:${trackApiKey}`).toString('base64')}`;

  async function handleTrack(req: IncomingMessage, res: ServerResponse, customerId: string, isEvent: boolean) {
    if (req.headers.authorization !== trackAuth) return fail(res, 401, 'Unauthorized request');
    if (req.method !== (isEvent ? 'POST' : 'PUT')) return fail(res, 405, 'Method not allowed');
    const body = await readJsonObject(req);
    if (!body) return fail(res, 400, 'Request body must be a JSON object');
    if (!isEvent) {
      people[customerId] = { ...people[customerId], ...body };
      return send(res, 200, {});
    }
    if (typeof body.name !== 'string' || !body.name) return fail(res, 400, 'name is required');
    if (body.data !== undefined && (typeof body.data !== 'object' || body.data === null)) {
      return fail(res, 400, 'data must be an object');
    }
    events.push({ customerId, name: body.name, data: (body.data as Record<string, unknown>) ?? {} });
    return send(res, 200, {});
  }

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/__fake/messages') return send(res, 200, { messages });
    if (url.pathname === '/__fake/people') return send(res, 200, { people });
    if (url.pathname === '/__fake/events') return send(res, 200, { events });
    const track = TRACK_PATH.exec(url.pathname);
    if (track) return handleTrack(req, res, decodeURIComponent(track[1]!), Boolean(track[2]));
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
  };
  const served = await serve('fake customer.io', route, { port });
  return {
    url: served.url,
    apiKey,
    siteId,
    trackApiKey,
    messages,
    people,
    events,
    close: served.close,
  };
}

/** The environment that points the app at this fake. */
export function customerIoEnv(fake: FakeCustomerIo): Record<string, string> {
  return {
    CUSTOMERIO_API_URL: `${fake.url}/v1`,
    CUSTOMERIO_APP_API_KEY: fake.apiKey,
    CUSTOMERIO_INVITATION_MESSAGE_ID: 'invitation',
    CUSTOMERIO_TRACK_URL: `${fake.url}/api/v1`,
    CUSTOMERIO_SITE_ID: fake.siteId,
    CUSTOMERIO_API_KEY: fake.trackApiKey,
  };
}
