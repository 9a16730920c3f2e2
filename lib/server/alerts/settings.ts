/**
 * What people set about alerts: the organization's Slack webhook (sealed at rest, shown masked, tried
 * with a test message) and a conversion's failure threshold.
 */
import type { FailureThreshold } from '@/lib/shared/alerts';
import { postToSlack, slackText, slackWebhookProblem, webhookHint } from '@/lib/server/alerts/slack';
import { slackWebhookOf } from '@/lib/server/alerts/notify';
import { DomainError, invalidFields, notFound } from '@/lib/server/errors';
import { consumeRateLimits, type RateLimit } from '@/lib/server/limits/rateLimit';
import * as repo from '@/lib/server/repos/alerts';
import { seal } from '@/lib/server/secretBox';

/** Test messages an organization may send to its webhook. */
const SLACK_TESTS: RateLimit = {
  name: 'slack_tests_per_organization',
  limit: 10,
  windowSeconds: 3600,
  env: 'RATE_LIMIT_SLACK_TESTS_PER_ORGANIZATION_PER_HOUR',
  message: (limit, retryAfter) => `At most ${limit} test messages an hour. Try again in ${retryAfter}.`,
};

export async function slackSettings(orgId: string): Promise<{ configured: boolean; hint: string | null }> {
  const hint = await repo.slackWebhookHint(orgId);
  return { configured: hint !== null, hint };
}

/** Saves (or with null removes) the webhook; a URL we do not post to is a 400 on the field. */
export async function saveSlackSettings(orgId: string, uid: string, webhookUrl: string | null) {
  if (webhookUrl === null) {
    await repo.saveSlackWebhook(orgId, null, null, uid);
    return slackSettings(orgId);
  }
  const problem = slackWebhookProblem(webhookUrl);
  if (problem) throw invalidFields({ webhookUrl: [problem] });
  await repo.saveSlackWebhook(orgId, seal(webhookUrl, `${orgId}/alert_settings/slack`), webhookHint(webhookUrl), uid);
  return slackSettings(orgId);
}

/** Posts "this is a test" to the saved webhook; Slack's refusal is a 400 the page shows. */
export async function sendSlackTest(orgId: string): Promise<{ sent: true }> {
  const webhook = await slackWebhookOf(orgId);
  if (!webhook) throw new DomainError('invalid', 'Save a Slack webhook first.', { reason: 'no_webhook' });
  await consumeRateLimits([{ rule: SLACK_TESTS, key: orgId }]);
  const name = await repo.organizationName(orgId);
  const posted = await postToSlack(
    webhook,
    `:wave: SignalBridge alerts for ${slackText(name)} will arrive in this channel. (Test message)`,
  );
  if (!posted.ok) throw new DomainError('invalid', `The test message was not accepted: ${posted.reason}`, { reason: 'slack_refused' });
  return { sent: true };
}

export async function failureThreshold(orgId: string, conversionId: string): Promise<FailureThreshold> {
  const threshold = await repo.failureThresholdOf(orgId, conversionId);
  if (!threshold) throw notFound('Conversion not found.');
  return threshold;
}

export async function saveFailureThreshold(orgId: string, conversionId: string, threshold: FailureThreshold): Promise<FailureThreshold> {
  await repo.saveFailureThreshold(orgId, conversionId, threshold);
  return threshold;
}
