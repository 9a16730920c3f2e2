import { Agent as HttpAgent } from 'node:http';
import { APIClient, SendEmailRequest, TrackClient } from 'customerio-node';
import { errorFields, log } from '@/lib/server/log';

/**
 * Customer.io: the Track API (identify people, record events; site id + API key) and the
 * transactional App API (emails; app key). `npm run dev` and the tests point both at a local fake
 * (sandbox/customerio.ts).
 */
const DEFAULT_API_URL = 'https://api.customer.io/v1';
const DEFAULT_TRACK_URL = 'https://track.customer.io/api/v1';

/** customerio-node 4 always speaks https and drops the URL's port; a plain-http local fake needs both back. */
function transportFor(base: string) {
  const url = new URL(base);
  const transport =
    url.protocol === 'http:'
      ? { protocol: 'http:', agent: new HttpAgent(), port: Number(url.port || 80) }
      : url.port
        ? { port: Number(url.port) }
        : {};
  return { url: url.toString().replace(/\/$/, ''), ...transport };
}

function apiClient(): APIClient | null {
  const appKey = process.env.CUSTOMERIO_APP_API_KEY;
  return appKey ? new APIClient(appKey, transportFor(process.env.CUSTOMERIO_API_URL || DEFAULT_API_URL)) : null;
}

function trackClient(): TrackClient | null {
  const { CUSTOMERIO_SITE_ID: siteId, CUSTOMERIO_API_KEY: apiKey } = process.env;
  return siteId && apiKey ? new TrackClient(siteId, apiKey, transportFor(process.env.CUSTOMERIO_TRACK_URL || DEFAULT_TRACK_URL)) : null;
}

export interface TransactionalEmail {
  to: string;
  messageId: string;
  /** The template's data, as plain text: each value is HTML-escaped here, once, for every template. */
  data: Record<string, string>;
}

/**
 * Customer.io's Liquid templates insert message data as it comes, and much of ours is text people chose
 * (an organization's or a conversion's name, an inviter's address): every value goes HTML-escaped, so a
 * template needs no `escape` filter (docs/PRODUCT.md, "Emails").
 */
export function htmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const escapedData = (data: Record<string, string>) =>
  Object.fromEntries(Object.entries(data).map(([name, value]) => [name, htmlEscape(value)]));

/**
 * A Customer.io failure as log fields: its HTTP status only when Customer.io answered (its error keeps the raw
 * answer, which may quote the address or the traits sent), else the error (the network's, or ours).
 */
export function customerioErrorFields(error: unknown): Record<string, unknown> {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? { status, error: 'Customer.io refused the request' } : errorFields(error);
}

/** Sends a transactional email; false (and a log line) when it could not be sent or is not configured. */
export async function sendTransactionalEmail({ to, messageId, data }: TransactionalEmail): Promise<boolean> {
  const api = apiClient();
  if (!api) {
    // Never the address: the template's id (and the request's or job's labels, from its context).
    log.warn({ component: 'customerio', messageId }, 'CUSTOMERIO_APP_API_KEY is not set: email not sent');
    return false;
  }
  try {
    await api.sendEmail(
      new SendEmailRequest({ to, transactional_message_id: messageId, identifiers: { email: to }, message_data: escapedData(data) }),
    );
    return true;
  } catch (error) {
    log.error({ component: 'customerio', messageId, ...customerioErrorFields(error) }, 'transactional email not sent');
    return false;
  }
}

export type Traits = Record<string, string | number | boolean | null>;

/** Creates or updates the person `userId` with these attributes; false when tracking is not configured. */
export async function identifyPerson(userId: string, traits: Traits): Promise<boolean> {
  const track = trackClient();
  if (!track) return false;
  await track.identify(userId, traits);
  return true;
}

/** Records that `userId` did `name`; false when tracking is not configured. */
export async function trackPersonEvent(userId: string, name: string, data: Record<string, unknown>): Promise<boolean> {
  const track = trackClient();
  if (!track) return false;
  await track.track(userId, { name, data });
  return true;
}
