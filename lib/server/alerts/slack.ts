/**
 * An organization's Slack incoming webhook: which URLs we accept, and posting one message to it.
 *
 * Only https URLs (the webhook's path is its secret; it must not cross the network in clear) on a
 * named host. Plain http is accepted only for the origins listed in ALERTS_SLACK_HTTP_ORIGINS, which
 * `npm run dev` and the tests set to the sandbox's fake receiver, and only on the local stack (an
 * emulator host set): a production server ignores it, and refuses to start with it (lib/server/env.ts).
 */
import { isIP } from 'node:net';

/** Why this URL cannot be a webhook, or null when it can. */
export function slackWebhookProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter the webhook URL Slack gave you (https://hooks.slack.com/services/…).';
  }
  const local = Boolean(process.env.FIRESTORE_EMULATOR_HOST || process.env.FIREBASE_AUTH_EMULATOR_HOST);
  const httpOrigins = (local ? (process.env.ALERTS_SLACK_HTTP_ORIGINS ?? '') : '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/$/, ''))
    .filter(Boolean);
  if (url.protocol === 'http:' && httpOrigins.includes(url.origin)) return null;
  if (url.protocol !== 'https:') return 'The webhook URL must start with https://.';
  if (url.username || url.password) return 'The webhook URL must not contain a user name or password.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || host === 'localhost' || !host.includes('.')) return 'The webhook URL must name a public host, such as hooks.slack.com.';
  return null;
}

/** What the settings page shows of a saved webhook: its host and the last characters of its secret path. */
export function webhookHint(value: string): string {
  const url = new URL(value);
  return `${url.origin}/…${url.pathname.slice(-4)}`;
}

/** Posts one message; says why when Slack (or the network) refused it. Never throws. */
export async function postToSlack(webhookUrl: string, text: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (slackWebhookProblem(webhookUrl)) return { ok: false, reason: 'The webhook URL is not accepted any more.' };
  try {
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text }),
      redirect: 'error',
      signal: AbortSignal.timeout(5000),
    });
    const answer = (await response.text()).slice(0, 200);
    if (response.ok) return { ok: true };
    return { ok: false, reason: `Slack answered ${response.status}${answer ? ` (${answer})` : ''}.` };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return { ok: false, reason: timedOut ? 'Slack did not answer within 5 seconds.' : 'Slack could not be reached.' };
  }
}
