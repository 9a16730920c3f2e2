/**
 * An organization's Slack incoming webhook: which URLs we accept, and posting one message to it.
 *
 * Only Slack's own incoming-webhook URLs, `https://hooks.slack.com/services/{team}/{bot}/{secret}` on
 * port 443 (https://api.slack.com/messaging/webhooks): the server posts there on every alert, so any
 * other host (an internal name, a cloud metadata endpoint, someone else's server) is refused. The sandbox's
 * fake receiver speaks plain http on a local port: its origin is accepted in place of hooks.slack.com only
 * when ALERTS_SLACK_HTTP_ORIGINS names it, on the local stack (an emulator host set) and outside a
 * production build (NODE_ENV=production ignores it; a server without emulators refuses to start with it, see
 * lib/server/env.ts).
 */
const SLACK_WEBHOOK_ORIGIN = 'https://hooks.slack.com';
/** What follows the origin in every incoming-webhook URL Slack hands out; no query, no fragment. */
const WEBHOOK_PATH = /^\/services\/[A-Z0-9]+\/[A-Z0-9]+\/[A-Za-z0-9]+$/;
const NOT_A_SLACK_WEBHOOK = 'Enter the incoming-webhook URL Slack gave you: https://hooks.slack.com/services/…';

/** The sandbox's fake receivers, honoured only on a local, non-production stack. */
function sandboxOrigins(): string[] {
  const local = Boolean(process.env.FIRESTORE_EMULATOR_HOST || process.env.FIREBASE_AUTH_EMULATOR_HOST);
  if (!local || process.env.NODE_ENV === 'production') return [];
  return (process.env.ALERTS_SLACK_HTTP_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/$/, ''))
    .filter(Boolean);
}

/** Why this URL cannot be a webhook, or null when it can. */
export function slackWebhookProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return NOT_A_SLACK_WEBHOOK;
  }
  if (url.username || url.password) return 'The webhook URL must not contain a user name or password.';
  // URL drops the default port, so "https://hooks.slack.com:443/…" has this origin and ":8443" does not.
  const slackOrigin = url.origin === SLACK_WEBHOOK_ORIGIN || sandboxOrigins().includes(url.origin);
  if (!slackOrigin || !WEBHOOK_PATH.test(url.pathname) || url.search || url.hash) return NOT_A_SLACK_WEBHOOK;
  return null;
}

/**
 * Text we did not write (names people chose, messages that quote them) as Slack shows it literally:
 * `&`, `<` and `>` are its control characters (mentions such as <!channel>, links <url|label>), escaped as
 * Slack documents (https://api.slack.com/reference/surfaces/formatting#escaping).
 */
export function slackText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** What the settings page shows of a saved webhook: its host and the last characters of its secret path. */
export function webhookHint(value: string): string {
  const url = new URL(value);
  return `${url.origin}/…${url.pathname.slice(-4)}`;
}

/** Slack's answer in our words: its body is never passed on (nor read), only what its status means. */
function refusalReason(status: number): string {
  if (status === 403 || status === 404 || status === 410)
    return `Slack answered ${status}: the webhook was removed, or its channel archived. Create a new one in Slack and save it here.`;
  if (status === 429) return 'Slack answered 429: too many messages for now. Try again in a minute.';
  return `Slack answered ${status}.`;
}

/** Posts one message (redirects are not followed); says why when Slack (or the network) refused it. Never throws. */
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
    await response.body?.cancel();
    return response.ok ? { ok: true } : { ok: false, reason: refusalReason(response.status) };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return { ok: false, reason: timedOut ? 'Slack did not answer within 5 seconds.' : 'Slack could not be reached.' };
  }
}
