/**
 * A fake Slack incoming-webhook receiver that checks what Slack checks and records what it accepts:
 * POST /services/{team}/{bot}/{secret} with a JSON body holding a non-empty `text` (or `blocks`).
 * Slack answers `ok` in plain text; an unknown webhook is 404 `no_service`, a body that is not JSON
 * 400 `invalid_payload`, one without text 400 `no_text`. GET /__fake/slack lists what came in.
 *
 * Slack's webhooks are https://hooks.slack.com only; this one speaks http on a local port, which the app
 * accepts in place of hooks.slack.com only for the origins in ALERTS_SLACK_HTTP_ORIGINS (set by `npm run dev`
 * and the tests), on the local stack and never in a production build (lib/server/alerts/slack.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, serve } from '@/sandbox/server';

export interface SlackMessage {
  webhook: string;
  text: string;
  receivedAt: number;
}

export interface FakeSlack {
  url: string;
  /** A webhook URL this receiver accepts. */
  webhookUrl: string;
  messages: SlackMessage[];
  /** Makes the webhook answer 404 `no_service`, as Slack does once the app is removed from the channel. */
  disable: () => void;
  close: () => Promise<void>;
}

const WEBHOOK_PATH = /^\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+$/;

function text(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { 'Content-Type': 'text/html' });
  res.end(body);
}

export async function startFakeSlack({ port = 0 } = {}): Promise<FakeSlack> {
  const messages: SlackMessage[] = [];
  const secretPath = '/services/T0SANDBOX/B0ALERTS/sandboxWebhookSecret';
  let disabled = false;
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/__fake/slack') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ messages }));
    }
    if (!WEBHOOK_PATH.test(url.pathname) || url.pathname !== secretPath || disabled) return text(res, 404, 'no_service');
    if (req.method !== 'POST') return text(res, 405, 'invalid_method');
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return text(res, 400, 'invalid_payload');
    }
    const message = body as { text?: unknown; blocks?: unknown };
    if (!body || typeof body !== 'object' || ((typeof message.text !== 'string' || !message.text.trim()) && !Array.isArray(message.blocks)))
      return text(res, 400, 'no_text');
    messages.push({ webhook: url.pathname, text: String(message.text ?? ''), receivedAt: Date.now() });
    text(res, 200, 'ok');
  };
  const served = await serve('fake slack', route, { port });
  return {
    url: served.url,
    webhookUrl: `${served.url}${secretPath}`,
    messages,
    disable: () => {
      disabled = true;
    },
    close: served.close,
  };
}

/** The environment that lets the app post to this fake over plain http. */
export function slackEnv(fake: FakeSlack): Record<string, string> {
  return { ALERTS_SLACK_HTTP_ORIGINS: fake.url };
}
