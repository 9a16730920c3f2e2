/**
 * Telling people about a notice: one email to each owner and admin (and whoever created the object)
 * whose settings keep that kind on, and one Slack message when the organization has a webhook. When
 * many notices come at once (more than ALERT_DIGEST_AFTER within ALERT_DIGEST_WINDOW_MS), the rest wait
 * ALERT_DIGEST_DELAY_MS and go out together as one digest.
 */
import { ALERT_KIND_LABELS, notificationsPathOf } from '@/lib/shared/alerts';
import { appUrl } from '@/lib/server/appUrl';
import { postToSlack, slackText } from '@/lib/server/alerts/slack';
import {
  admitNotice,
  alertRecipients,
  organizationName,
  readSlackWebhook,
  takeDueDigest,
  type DigestItem,
  type Recipient,
} from '@/lib/server/repos/alerts';
import { open } from '@/lib/server/secretBox';
import { sendTransactionalEmail } from '@/lib/server/vendors/customerio';
import { errorFields, labels, log } from '@/lib/server/log';

const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

const digestRules = () => ({
  perWindow: numberFromEnv('ALERT_DIGEST_AFTER', 3),
  windowMs: numberFromEnv('ALERT_DIGEST_WINDOW_MS', 5 * 60_000),
  digestMs: numberFromEnv('ALERT_DIGEST_DELAY_MS', 2 * 60_000),
});

const logFailure = (what: string, orgId: string, error: unknown) =>
  log.error({ component: 'alerts', ...labels({ org: orgId }), ...errorFields(error) }, what);

/** The organization's webhook, opened; null when none (or it cannot be opened). */
export async function slackWebhookOf(orgId: string): Promise<string | null> {
  const sealed = await readSlackWebhook(orgId);
  if (!sealed) return null;
  try {
    return open(sealed, `${orgId}/alert_settings/slack`);
  } catch (error) {
    logFailure('Slack webhook could not be opened', orgId, error);
    return null;
  }
}

const wants = (recipient: Recipient, item: DigestItem) =>
  recipient.prefs[item.kind] && (recipient.role !== 'member' || recipient.uid === item.createdBy);

/** Emails one notice and posts it to Slack now. */
async function sendNow(orgId: string, item: DigestItem): Promise<void> {
  const [recipients, name, webhook] = await Promise.all([
    alertRecipients(orgId, item.createdBy),
    organizationName(orgId),
    slackWebhookOf(orgId),
  ]);
  const link = appUrl(item.link);
  await Promise.all(
    recipients
      .filter((recipient) => wants(recipient, item))
      .map((recipient) =>
        sendTransactionalEmail({
          to: recipient.email,
          messageId: process.env.CUSTOMERIO_ALERT_MESSAGE_ID || 'alert',
          data: {
            organization_name: name,
            state: item.state,
            kind: item.kind,
            kind_label: ALERT_KIND_LABELS[item.kind],
            title: item.title,
            message: item.message,
            link,
          },
        }),
      ),
  );
  if (webhook) {
    const icon = item.state === 'resolved' ? ':white_check_mark:' : ':warning:';
    const text = `${icon} *${slackText(item.title)}* (${slackText(name)})\n${slackText(item.message)}\n<${link}|Open in SignalBridge>`;
    const posted = await postToSlack(webhook, text);
    if (!posted.ok) log.warn({ component: 'alerts', ...labels({ org: orgId }), reason: posted.reason }, 'Slack refused an alert');
  }
}

/** Sends the digest once it is due (whoever gets there first: a timer, or the next notice). */
export async function flushDigest(orgId: string): Promise<number> {
  const items = await takeDueDigest(orgId, digestRules().perWindow);
  if (items.length === 0) return 0;
  const creators = [...new Set(items.map((item) => item.createdBy).filter((uid): uid is string => Boolean(uid)))];
  const [recipients, name, webhook] = await Promise.all([
    Promise.all([alertRecipients(orgId), ...creators.map((uid) => alertRecipients(orgId, uid))]).then((lists) => [
      ...new Map(lists.flat().map((recipient) => [recipient.uid, recipient])).values(),
    ]),
    organizationName(orgId),
    slackWebhookOf(orgId),
  ]);
  const line = (item: DigestItem) => `${item.state === 'resolved' ? 'Resolved' : 'Alert'}: ${item.title}. ${item.message}`;
  const link = appUrl(notificationsPathOf(orgId));
  await Promise.all(
    recipients.map((recipient) => {
      const mine = items.filter((item) => wants(recipient, item));
      if (mine.length === 0) return false;
      return sendTransactionalEmail({
        to: recipient.email,
        messageId: process.env.CUSTOMERIO_ALERT_DIGEST_MESSAGE_ID || 'alert_digest',
        data: { organization_name: name, count: String(mine.length), summary: mine.map(line).join('\n'), link },
      });
    }),
  );
  if (webhook) {
    const lines = items.map((item) => `• ${slackText(line(item))}`).join('\n');
    const text = `:rotating_light: *${items.length} alerts* (${slackText(name)})\n${lines}\n<${link}|Open in SignalBridge>`;
    const posted = await postToSlack(webhook, text);
    if (!posted.ok) log.warn({ component: 'alerts', ...labels({ org: orgId }), reason: posted.reason }, 'Slack refused an alert digest');
  }
  return items.length;
}

const timers = new Map<string, ReturnType<typeof setTimeout>>();

function flushAt(orgId: string, dueAt: number) {
  if (timers.has(orgId)) return;
  const timer = setTimeout(
    () => {
      timers.delete(orgId);
      flushDigest(orgId).catch((error) => logFailure('alert digest not sent', orgId, error));
    },
    Math.max(0, dueAt - Date.now()) + 50,
  );
  timer.unref?.();
  timers.set(orgId, timer);
}

/** Forgets the digests this process meant to send (a test file ending; a process shutting down): the next notice of each organization sends them. */
export function stopDigestTimers(): void {
  for (const timer of timers.values()) clearTimeout(timer);
  timers.clear();
}

/** Emails and posts a notice now, or leaves it for the digest. Never throws. */
export async function dispatch(orgId: string, item: DigestItem): Promise<void> {
  try {
    await flushDigest(orgId);
    const admitted = await admitNotice(orgId, item, digestRules());
    if (admitted.send) await sendNow(orgId, item);
    else flushAt(orgId, admitted.dueAt);
  } catch (error) {
    logFailure('alert not sent', orgId, error);
  }
}
