import { Agent as HttpAgent } from 'node:http';
import { APIClient, SendEmailRequest } from 'customerio-node';

/** Customer.io's transactional API; a local fake in development and tests (tests/fakes/customerio.ts). */
const DEFAULT_API_URL = 'https://api.customer.io/v1';

function client(): APIClient | null {
  const appKey = process.env.CUSTOMERIO_APP_API_KEY;
  if (!appKey) return null;
  const url = new URL(process.env.CUSTOMERIO_API_URL || DEFAULT_API_URL);
  // customerio-node 4 always speaks https and drops the URL's port; a plain-http local fake needs both back.
  const transport =
    url.protocol === 'http:'
      ? { protocol: 'http:', agent: new HttpAgent(), port: Number(url.port || 80) }
      : url.port
        ? { port: Number(url.port) }
        : {};
  return new APIClient(appKey, { url: url.toString().replace(/\/$/, ''), ...transport });
}

export interface TransactionalEmail {
  to: string;
  messageId: string;
  data: Record<string, string>;
}

/** Sends a transactional email; false (and a log line) when it could not be sent or is not configured. */
export async function sendTransactionalEmail({ to, messageId, data }: TransactionalEmail): Promise<boolean> {
  const api = client();
  if (!api) {
    console.warn('[customerio] CUSTOMERIO_APP_API_KEY is not set: email not sent', { to, messageId });
    return false;
  }
  try {
    await api.sendEmail(
      new SendEmailRequest({ to, transactional_message_id: messageId, identifiers: { email: to }, message_data: data }),
    );
    return true;
  } catch (error) {
    console.error('[customerio] sending failed', { to, messageId, error: error instanceof Error ? error.message : error });
    return false;
  }
}
