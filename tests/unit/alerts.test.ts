/** @jest-environment node */
import { lastHourCounts } from '@/lib/server/alerts/delivery';
import { slackWebhookProblem, webhookHint } from '@/lib/server/alerts/slack';
import { configurationProblems } from '@/lib/server/env';
import { alertLinkOf } from '@/lib/shared/alerts';
import { failureThresholdSchema } from '@/lib/shared/schemas/alerts';

describe('the last hour from two hourly counters', () => {
  test('at 14:15, the current hour whole and three quarters of the previous one', () => {
    const counts = lastHourCounts({ delivered: 10, failed: 10 }, { delivered: 40, failed: 40 }, new Date('2026-01-01T14:15:00Z'));
    expect(counts).toEqual({ total: 80, failed: 40 });
  });
  test('on the hour, the previous hour whole; at :59:59, almost nothing of it', () => {
    expect(lastHourCounts({ delivered: 0, failed: 0 }, { delivered: 5, failed: 15 }, new Date('2026-01-01T14:00:00Z'))).toEqual({
      total: 20,
      failed: 15,
    });
    expect(lastHourCounts({ delivered: 3, failed: 1 }, { delivered: 500, failed: 500 }, new Date('2026-01-01T14:59:59Z'))).toEqual({
      total: 4,
      failed: 1,
    });
  });
});

describe('Slack webhook URLs', () => {
  const saved = { origins: process.env.ALERTS_SLACK_HTTP_ORIGINS, emulator: process.env.FIRESTORE_EMULATOR_HOST };
  afterEach(() => {
    if (saved.origins === undefined) delete process.env.ALERTS_SLACK_HTTP_ORIGINS;
    else process.env.ALERTS_SLACK_HTTP_ORIGINS = saved.origins;
    if (saved.emulator === undefined) delete process.env.FIRESTORE_EMULATOR_HOST;
    else process.env.FIRESTORE_EMULATOR_HOST = saved.emulator;
  });

  test('https on a named host is accepted; http, IPs, localhost and credentials are not', () => {
    delete process.env.ALERTS_SLACK_HTTP_ORIGINS;
    expect(slackWebhookProblem('https://hooks.slack.com/services/T1/B1/abc')).toBeNull();
    for (const url of [
      'http://hooks.slack.com/services/T1/B1/abc',
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://localhost/x',
      'https://user:pw@hooks.slack.com/x',
      'javascript:alert(1)',
      '',
    ]) {
      expect(slackWebhookProblem(url)).not.toBeNull();
    }
  });

  test('plain http only for an origin the environment names (the sandbox), nothing else', () => {
    process.env.FIRESTORE_EMULATOR_HOST = '127.0.0.1:8080';
    process.env.ALERTS_SLACK_HTTP_ORIGINS = 'http://127.0.0.1:4650';
    expect(slackWebhookProblem('http://127.0.0.1:4650/services/T0/B0/x')).toBeNull();
    expect(slackWebhookProblem('http://127.0.0.1:4651/services/T0/B0/x')).not.toBeNull();
  });

  test('a production server (no emulator) ignores the override, and will not start with it', () => {
    delete process.env.FIRESTORE_EMULATOR_HOST;
    process.env.ALERTS_SLACK_HTTP_ORIGINS = 'http://127.0.0.1:4650';
    expect(slackWebhookProblem('http://127.0.0.1:4650/services/T0/B0/x')).toMatch(/https/);
    expect(configurationProblems({ ALERTS_SLACK_HTTP_ORIGINS: 'http://127.0.0.1:4650' })).toContain(
      'ALERTS_SLACK_HTTP_ORIGINS is for the local sandbox only: unset it',
    );
    expect(
      configurationProblems({ FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080', ALERTS_SLACK_HTTP_ORIGINS: 'http://127.0.0.1:4650' }),
    ).toEqual([]);
  });

  test('the hint shows the host and the last four characters only', () => {
    expect(webhookHint('https://hooks.slack.com/services/T000/B000/secretABCD')).toBe('https://hooks.slack.com/…ABCD');
  });
});

test('each notice links to its object', () => {
  expect(alertLinkOf('o1', 'connection', 'c1')).toBe('/o1/connection/c1/configuration');
  expect(alertLinkOf('o1', 'source', 's1', 'meta')).toBe('/o1/source/s1/meta/configuration');
  expect(alertLinkOf('o1', 'organization', 'o1')).toBe('/o1/settings');
});

test('a threshold is whole numbers within range', () => {
  expect(failureThresholdSchema.safeParse({ percent: 10, minEvents: 20 }).success).toBe(true);
  expect(failureThresholdSchema.safeParse({ percent: 101, minEvents: 20 }).success).toBe(false);
  expect(failureThresholdSchema.safeParse({ percent: 10, minEvents: 0 }).success).toBe(false);
  expect(failureThresholdSchema.safeParse({ percent: 10, minEvents: 20, extra: 1 }).success).toBe(false);
});
