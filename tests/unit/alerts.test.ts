/** @jest-environment node */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastHourCounts } from '@/lib/server/alerts/delivery';
import { postToSlack, slackText, slackWebhookProblem, webhookHint } from '@/lib/server/alerts/slack';
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

/** Sets (or with undefined removes) process variables, NODE_ENV included (typed read-only). */
const setEnv = (values: Record<string, string | undefined>) => {
  const env = process.env as Record<string, string | undefined>;
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
};

describe('Slack webhook URLs', () => {
  const saved = {
    ALERTS_SLACK_HTTP_ORIGINS: process.env.ALERTS_SLACK_HTTP_ORIGINS,
    FIRESTORE_EMULATOR_HOST: process.env.FIRESTORE_EMULATOR_HOST,
    NODE_ENV: process.env.NODE_ENV,
  };
  afterEach(() => setEnv(saved));

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

  test("only Slack's incoming webhooks: no other host, port, path or internal name", () => {
    delete process.env.ALERTS_SLACK_HTTP_ORIGINS;
    expect(slackWebhookProblem('https://hooks.slack.com:443/services/T1/B1/abc')).toBeNull();
    for (const url of [
      'https://localhost./services/T1/B1/abc',
      'https://x.localhost/services/T1/B1/abc',
      'https://127.0.0.1.nip.io/services/T1/B1/abc',
      'https://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token',
      'https://host.internal/services/T1/B1/abc',
      'https://evil.example/services/T1/B1/abc',
      'https://hooks.slack.com:8443/services/T1/B1/abc',
      'https://hooks.slack.com./services/T1/B1/abc',
      'https://hooks.slack.com.evil.example/services/T1/B1/abc',
      'https://hooks.slack.com/services/T1/B1/abc?next=x',
      'https://hooks.slack.com/services/T1/B1/../../redirect',
      'https://hooks.slack.com/workflows/T1/A1/1/abc',
      'https://hooks.slack.com/',
    ]) {
      expect([url, slackWebhookProblem(url)]).toEqual([url, expect.stringMatching(/https:\/\/hooks\.slack\.com\/services\//)]);
    }
  });

  test('the sandbox override is ignored by a production build, even on the local stack', () => {
    setEnv({ FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080', ALERTS_SLACK_HTTP_ORIGINS: 'http://127.0.0.1:4650', NODE_ENV: 'production' });
    expect(slackWebhookProblem('http://127.0.0.1:4650/services/T0/B0/x')).not.toBeNull();
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

  test("Slack's control characters in our text are escaped, so a name cannot ping a channel or disguise a link", () => {
    expect(slackText('<!channel> <https://evil.example/login|Reconnect Meta> & co')).toBe(
      '&lt;!channel&gt; &lt;https://evil.example/login|Reconnect Meta&gt; &amp; co',
    );
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

describe('posting to a webhook', () => {
  const saved = {
    ALERTS_SLACK_HTTP_ORIGINS: process.env.ALERTS_SLACK_HTTP_ORIGINS,
    FIRESTORE_EMULATOR_HOST: process.env.FIRESTORE_EMULATOR_HOST,
  };
  let server: Server;
  let origin: string;
  const hits: string[] = [];
  beforeAll(async () => {
    // A receiver that redirects one webhook elsewhere and answers another with an error page.
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/services/T0/B0/redirect') res.writeHead(307, { Location: '/services/T0/B0/elsewhere' }).end();
      else res.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal secret: db password hunter2');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    setEnv({ FIRESTORE_EMULATOR_HOST: '127.0.0.1:8080', ALERTS_SLACK_HTTP_ORIGINS: origin });
  });
  afterAll(async () => {
    setEnv(saved);
    await new Promise((resolve) => server.close(resolve));
  });

  test('a redirect is not followed', async () => {
    const posted = await postToSlack(`${origin}/services/T0/B0/redirect`, 'hello');
    expect(posted.ok).toBe(false);
    expect(hits).not.toContain('/services/T0/B0/elsewhere');
  });

  test("the receiver's answer is never passed on, only its status", async () => {
    const posted = await postToSlack(`${origin}/services/T0/B0/error`, 'hello');
    expect(posted).toEqual({ ok: false, reason: 'Slack answered 500.' });
  });
});
