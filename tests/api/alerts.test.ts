import { adminDb } from '@/lib/server/firebaseAdmin';
import { raiseAlert } from '@/lib/server/alerts';
import { evaluateConversion } from '@/lib/server/alerts/delivery';
import { deliverBatch } from '@/lib/server/delivery/deliver';
import { getConversion } from '@/lib/server/repos/conversions';
import { getRun } from '@/lib/server/repos/ledger';
import { requestRead } from '@/lib/server/repos/reads';
import { readConversion } from '@/lib/server/delivery/warehouse';
import { createConversion } from '@/lib/server/services/conversions';
import { runSyncJob } from '@/lib/server/sync/runner';
import { startRun } from '@/lib/server/sync/scheduler';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import conversionAlerts from '@/pages/api/orgs/[orgId]/conversions/[id]/alerts';
import preferences from '@/pages/api/orgs/[orgId]/alerts/preferences';
import slack from '@/pages/api/orgs/[orgId]/alerts/slack';
import slackTest from '@/pages/api/orgs/[orgId]/alerts/slack-test';
import notifications from '@/pages/api/orgs/[orgId]/notifications/index';
import notificationsRead from '@/pages/api/orgs/[orgId]/notifications/read';
import complete from '@/pages/api/orgs/[orgId]/oauth/complete';
import start from '@/pages/api/orgs/[orgId]/oauth/start';
import destinationAccounts from '@/pages/api/orgs/[orgId]/destinations/[id]/accounts';
import sourceAccounts from '@/pages/api/orgs/[orgId]/sources/[id]/accounts';
import sourceObject from '@/pages/api/orgs/[orgId]/sources/[id]/index';
import { customerIoEnv, startFakeCustomerIo, type FakeCustomerIo, type RecordedEmail } from '@/sandbox/customerio';
import { type FakePlatforms, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { startFakeSlack, type FakeSlack } from '@/sandbox/slack';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/fixtures/firebase';
import { connectWarehouse, setUpConnection } from '@/tests/api/helpers/connections';
import { connectDestination, SANDBOX_TARGETS, setUpConversion } from '@/tests/api/helpers/conversions';
import { connectThroughConsent } from '@/tests/api/helpers/oauth';
import { callLoose as call, closeAll, serveHandlers, type TestServer } from '@/tests/api/helpers/server';
import { retryParked } from '@/lib/server/repos/parkedEvents';

// Alerts end to end: a failure noticed where it happens opens one incident, emails the owners and
// admins once (Customer.io's fake records it), lists one notice in the app, posts to Slack; the
// recovery sends one "resolved" notice. These tests read deep into response bodies.
const APP_URL = 'http://app.test';
const handlers = {
  conversionAlerts,
  preferences,
  slack,
  slackTest,
  notifications,
  notificationsRead,
  complete,
  start,
  destinationAccounts,
  sourceAccounts,
  sourceObject,
};
let s: Record<keyof typeof handlers, TestServer>;
let platforms: FakePlatforms;
let customerIo: FakeCustomerIo;
let fakeSlack: FakeSlack;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;
let orgId: string;
let otherOrg: string;

beforeAll(async () => {
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  s = await serveHandlers(handlers);
  [platforms, customerIo, fakeSlack] = await Promise.all([
    startFakePlatforms({ appUrl: [APP_URL, 'http://localhost:3999'] }),
    startFakeCustomerIo(),
    startFakeSlack(),
  ]);
  Object.assign(process.env, platformsEnv(platforms), customerIoEnv(customerIo), { APP_URL, ALERT_DIGEST_DELAY_MS: '300' });
  delete process.env.ALERTS_SLACK_HTTP_ORIGINS;
  [owner, admin, member, outsider] = await Promise.all([createTestUser(), createTestUser(), createTestUser(), createTestUser()]);
  orgId = await createTestOrganization([
    [owner, 'owner'],
    [admin, 'admin'],
    [member, 'member'],
  ]);
  otherOrg = await createTestOrganization([[outsider, 'owner']]);
});
afterAll(async () => {
  await closeAll(s);
  await Promise.all([platforms.close(), customerIo.close(), fakeSlack.close()]);
});

const alertEmails = (filter: (message: RecordedEmail) => boolean = () => true) =>
  customerIo.messages.filter((message) => message.transactionalMessageId === 'alert' && filter(message));
const about = (id: string) => (message: RecordedEmail) => String(message.messageData.link).includes(id);

/** Connects Google Ads as a source, or reconnects the source `objectId` (which returns to /googleReauth). */
const connectGoogleSource = (user: TestUser, org: string, objectId?: string) =>
  connectThroughConsent(
    s,
    user,
    org,
    { platform: 'google_ads', kind: 'source', objectId },
    objectId ? { returnPath: '/googleReauth' } : {},
  );

const openIncidents = async (org: string) =>
  (await adminDb().collection('organizations').doc(org).collection('incidents').where('status', '==', 'open').get()).docs;

/** Waits for something the alerts send after a short delay (the digest). */
async function eventually(check: () => boolean, ms = 5000) {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(check()).toBe(true);
}

describe('a login that needs reconnecting', () => {
  test('one incident, one email to each owner and admin (not members), one notice; Reconnect resolves it once', async () => {
    const id = await connectGoogleSource(owner, orgId);
    platforms.revokeAll('google');
    // Noticed twice (two page loads): still one incident and one email each.
    for (let i = 0; i < 2; i++) expect((await call(s.sourceAccounts, { token: owner.token, query: { orgId, id } })).status).toBe(409);

    const incidents = (await openIncidents(orgId)).filter((doc) => doc.get('subject_id') === id);
    expect(incidents.map((doc) => doc.get('kind'))).toEqual(['needs_reauth']);
    const opened = alertEmails(about(id));
    expect(opened.map((message) => message.to).sort()).toEqual([owner.email, admin.email].sort());
    expect(opened[0]!.messageData).toMatchObject({
      state: 'open',
      kind: 'needs_reauth',
      link: `${APP_URL}/${orgId}/source/${id}/google/configuration`,
    });
    expect(String(opened[0]!.messageData.message)).toMatch(/Reconnect/);

    const listed = await call(s.notifications, { token: member.token, query: { orgId } });
    expect(listed.status).toBe(200);
    expect(listed.body.unread).toBe(1);
    expect(listed.body.notifications).toEqual([
      expect.objectContaining({ kind: 'needs_reauth', state: 'open', read: false, link: `/${orgId}/source/${id}/google/configuration` }),
    ]);

    await connectGoogleSource(owner, orgId, id);
    expect(await openIncidents(orgId)).toHaveLength(0);
    const resolved = alertEmails((message) => about(id)(message) && message.messageData.state === 'resolved');
    expect(resolved.map((message) => message.to).sort()).toEqual([owner.email, admin.email].sort());
    const after = await call(s.notifications, { token: owner.token, query: { orgId } });
    expect(after.body.notifications.map((notice: { state: string }) => notice.state)).toEqual(['resolved', 'open']);
    expect(after.body.unread).toBe(2);

    // Read marks are per person.
    const read = await call(s.notificationsRead, {
      method: 'POST',
      token: member.token,
      query: { orgId },
      body: { ids: [after.body.notifications[1].id] },
    });
    expect(read.status).toBe(200);
    expect((await call(s.notifications, { token: member.token, query: { orgId } })).body.unread).toBe(1);
    expect((await call(s.notifications, { token: owner.token, query: { orgId } })).body.unread).toBe(2);
    await call(s.notificationsRead, { method: 'POST', token: owner.token, query: { orgId }, body: { all: true } });
    expect((await call(s.notifications, { token: owner.token, query: { orgId } })).body.unread).toBe(0);
  });

  test('deleting the object closes its incident quietly: no open incident, no "resolved" notice', async () => {
    // An organization of its own: its notices do not count toward the digest of the others.
    const org = await createTestOrganization([[owner, 'owner']]);
    const id = await connectGoogleSource(owner, org);
    platforms.revokeAll('google');
    expect((await call(s.sourceAccounts, { token: owner.token, query: { orgId: org, id } })).status).toBe(409);
    expect((await openIncidents(org)).filter((doc) => doc.get('subject_id') === id)).toHaveLength(1);

    expect((await call(s.sourceObject, { method: 'DELETE', token: owner.token, query: { orgId: org, id } })).status).toBe(200);
    expect((await openIncidents(org)).filter((doc) => doc.get('subject_id') === id)).toHaveLength(0);
    expect(alertEmails((message) => about(id)(message) && message.messageData.state === 'resolved')).toHaveLength(0);
  });

  test('someone who turned off these emails gets none; the others still do', async () => {
    const off = await call(s.preferences, {
      method: 'PUT',
      token: admin.token,
      query: { orgId },
      body: { email: { needs_reauth: false } },
    });
    expect(off.status).toBe(200);
    expect(off.body.email).toMatchObject({ needs_reauth: false, run_failed: true });
    expect((await call(s.preferences, { token: admin.token, query: { orgId } })).body.email.needs_reauth).toBe(false);
    // The owner's own settings are untouched.
    expect((await call(s.preferences, { token: owner.token, query: { orgId } })).body.email.needs_reauth).toBe(true);

    const id = await connectThroughConsent(s, owner, orgId, { platform: 'microsoft_ads', kind: 'destination' });
    platforms.revokeAll('microsoft');
    expect((await call(s.destinationAccounts, { token: owner.token, query: { orgId, id } })).status).toBe(409);
    expect(alertEmails(about(id)).map((message) => message.to)).toEqual([owner.email]);
    // Still listed in the app for everyone.
    const listed = await call(s.notifications, { token: admin.token, query: { orgId } });
    expect(listed.body.notifications[0]).toMatchObject({ kind: 'needs_reauth', subject: { type: 'destination', id } });
  });

  test('bad settings are a 400 that changes nothing', async () => {
    const bad = await call(s.preferences, { method: 'PUT', token: owner.token, query: { orgId }, body: { email: { everything: false } } });
    expect(bad.status).toBe(400);
    expect((await call(s.preferences, { method: 'PUT', token: owner.token, query: { orgId }, body: null })).status).toBe(400);
    expect((await call(s.notificationsRead, { method: 'POST', token: owner.token, query: { orgId }, body: { ids: [] } })).status).toBe(400);
    expect((await call(s.preferences, { token: owner.token, query: { orgId } })).body.email.needs_reauth).toBe(true);
  });

  test("another organization's notifications and settings are a 404", async () => {
    const mine = (await call(s.notifications, { token: owner.token, query: { orgId } })).body.notifications[0].id;
    expect((await call(s.notifications, { token: outsider.token, query: { orgId } })).status).toBe(404);
    expect((await call(s.preferences, { token: outsider.token, query: { orgId } })).status).toBe(404);
    expect((await call(s.slack, { token: outsider.token, query: { orgId } })).status).toBe(404);
    // A notice id of another organization, read through one's own: not found, nothing marked.
    const cross = await call(s.notificationsRead, {
      method: 'POST',
      token: outsider.token,
      query: { orgId: otherOrg },
      body: { ids: [mine] },
    });
    expect(cross.status).toBe(404);
    const snap = await adminDb().collection('organizations').doc(orgId).collection('notifications').doc(mine).get();
    expect(snap.get('read_by')).not.toContain(outsider.uid);
    expect((await call(s.notifications, { query: { orgId } })).status).toBe(401);
  });
});

describe("a conversion's refused share", () => {
  const stale = (n: number): ConversionEvent => ({
    id: `old-${n}`,
    name: 'Purchase',
    // Older than Meta's 7 days: the check holds every one back as not sent.
    time: Math.floor(Date.now() / 1000) - 30 * 24 * 3600,
    value: 10,
    currency: 'USD',
    user: { email: 'a'.repeat(64) },
    clickIds: {},
    context: { actionSource: 'website' },
  });

  test('over the threshold alerts once, not per batch; under it resolves', async () => {
    const setup = await setUpConversion('meta_ads');
    const conversion = await getConversion(setup.orgId, setup.conversionId);
    for (let batch = 0; batch < 3; batch++) {
      await deliverBatch(
        setup.orgId,
        conversion,
        Array.from({ length: 10 }, (_, i) => stale(batch * 10 + i)),
      );
      await evaluateConversion(setup.orgId, setup.conversionId);
    }
    const incidents = await openIncidents(setup.orgId);
    expect(incidents.map((doc) => doc.get('kind'))).toEqual(['delivery_failures']);
    const emails = customerIo.messages.filter((message) => message.to === setup.owner.email && message.transactionalMessageId === 'alert');
    expect(emails).toHaveLength(1);
    expect(String(emails[0]!.messageData.message)).toMatch(/of \d+ events in the last hour \(100 %\)/);
    // Issue 37 §7: the alert says the outcome in the words the log uses (not sent, failed), not "refused".
    expect(String(emails[0]!.messageData.message)).toMatch(
      /\(100 %\) were not sent or failed — over this conversion(&#39;|')s 10 % threshold/,
    );
    expect(String(emails[0]!.messageData.title)).toMatch(/^Events are not sent or failed: /);
    const listed = await call(s.notifications, { token: setup.owner.token, query: { orgId: setup.orgId } });
    expect(listed.body.notifications).toHaveLength(1);
    expect(listed.body.notifications[0]).toMatchObject({
      kind: 'delivery_failures',
      link: `/${setup.orgId}/conversion/${setup.conversionId}/configuration`,
    });

    // Raising the threshold above the share resolves it at the next evaluation, once.
    const raised = await call(s.conversionAlerts, {
      method: 'PUT',
      token: setup.owner.token,
      query: { orgId: setup.orgId, id: setup.conversionId },
      body: { percent: 100, minEvents: 1000 },
    });
    expect(raised.status).toBe(200);
    await evaluateConversion(setup.orgId, setup.conversionId);
    expect(await openIncidents(setup.orgId)).toHaveLength(0);
  });

  test('events parked after retries alert once; once none are parked it resolves', async () => {
    const setup = await setUpConversion('meta_ads');
    const conversion = await getConversion(setup.orgId, setup.conversionId);
    const fresh = (n: number): ConversionEvent => ({
      ...stale(n),
      id: `fresh-${n}`,
      time: Math.floor(Date.now() / 1000) - 60,
      context: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (sandbox)', pageUrl: 'https://shop.example/thanks', actionSource: 'website' },
    });
    platforms.conversions.fail('meta', { status: 503, seconds: 30 });
    const once = { attempts: 1, baseMs: 1, maxMs: 1 };
    await deliverBatch(setup.orgId, conversion, [fresh(1), fresh(2)], { retry: once });
    await deliverBatch(setup.orgId, conversion, [fresh(3)], { retry: once });
    await evaluateConversion(setup.orgId, setup.conversionId);
    platforms.conversions.failures.clear();
    expect((await openIncidents(setup.orgId)).map((doc) => doc.get('kind'))).toEqual(['events_parked']);
    const emails = () =>
      customerIo.messages.filter((message) => message.to === setup.owner.email && message.transactionalMessageId === 'alert');
    expect(emails()).toHaveLength(1);
    expect(String(emails()[0]!.messageData.message)).toMatch(/2 failed after retries/);

    // Retry takes them (and sends them again): nothing parked, one resolved notice.
    await retryParked(setup.orgId, setup.conversionId, 'failed', async () => undefined);
    await evaluateConversion(setup.orgId, setup.conversionId);
    expect(await openIncidents(setup.orgId)).toHaveLength(0);
    expect(emails().map((message) => message.messageData.state)).toEqual(['open', 'resolved']);
  });

  test('the threshold is read and edited per conversion; bad values are a 400; outsiders get a 404', async () => {
    const setup = await setUpConversion('meta_ads');
    const args = { orgId: setup.orgId, id: setup.conversionId };
    expect((await call(s.conversionAlerts, { token: setup.owner.token, query: args })).body.threshold).toEqual({
      percent: 10,
      minEvents: 20,
    });
    for (const body of [
      { percent: 0, minEvents: 20 },
      { percent: 10 },
      { percent: '10', minEvents: 20 },
      { percent: 10.5, minEvents: 20 },
    ]) {
      expect((await call(s.conversionAlerts, { method: 'PUT', token: setup.owner.token, query: args, body })).status).toBe(400);
    }
    expect(
      (await call(s.conversionAlerts, { method: 'PUT', token: outsider.token, query: args, body: { percent: 5, minEvents: 5 } })).status,
    ).toBe(404);
    expect((await call(s.conversionAlerts, { token: setup.owner.token, query: { ...args, id: 'missing' } })).status).toBe(404);
    const saved = await call(s.conversionAlerts, {
      method: 'PUT',
      token: setup.owner.token,
      query: args,
      body: { percent: 25, minEvents: 50 },
    });
    expect(saved.body.threshold).toEqual({ percent: 25, minEvents: 50 });
    expect((await call(s.conversionAlerts, { token: setup.owner.token, query: args })).body.threshold).toEqual({
      percent: 25,
      minEvents: 50,
    });
  });
});

describe("a connection's runs", () => {
  /** Runs every job of a new manual run here, each until it settles (a failing one after its attempts). */
  async function runOnce(orgId: string, connectionId: string) {
    const runId = (await startRun(orgId, connectionId, 'manual'))!;
    for (const job of Object.keys((await getRun(orgId, connectionId, runId)).jobs)) {
      for (let attempt = 0; attempt < 20; attempt++) {
        if ((await runSyncJob({ org: orgId, connection: connectionId, run: runId, job })) === 'ack') break;
      }
    }
    return getRun(orgId, connectionId, runId);
  }

  test('some accounts failing alerts once; the next run that succeeds resolves it', async () => {
    const setup = await setUpConnection({ platform: 'meta_ads', serviceAccountKey: platforms.serviceAccountKey, lookbackDays: 1 });
    platforms.adData.failAccount('101', 500);
    expect((await runOnce(setup.orgId, setup.connectionId)).outcome).toBe('partial');
    expect((await runOnce(setup.orgId, setup.connectionId)).outcome).toBe('partial');
    expect((await openIncidents(setup.orgId)).map((doc) => doc.get('kind'))).toEqual(['run_failed']);
    const emails = () =>
      customerIo.messages.filter((message) => message.to === setup.owner.email && message.transactionalMessageId === 'alert');
    expect(emails().map((message) => message.messageData.state)).toEqual(['open']);
    expect(emails()[0]!.messageData.link).toBe(`${APP_URL}/${setup.orgId}/connection/${setup.connectionId}/configuration`);

    platforms.adData.failAccount('101', 500, 0);
    expect((await runOnce(setup.orgId, setup.connectionId)).outcome).toBe('succeeded');
    expect(await openIncidents(setup.orgId)).toHaveLength(0);
    expect(emails().map((message) => message.messageData.state)).toEqual(['open', 'resolved']);
  });
});

describe('a warehouse read', () => {
  test('a read that fails alerts once, however often it fails', async () => {
    const boss = await createTestUser();
    const org = await createTestOrganization([[boss, 'owner']]);
    const warehouseId = await connectWarehouse(org, boss.uid, 'bigquery', platforms.serviceAccountKey);
    const destinationId = await connectDestination(org, boss.uid, 'meta_ads');
    const table = `leads_${Date.now()}`;
    platforms.bigquery.createTable('acme-warehouse', 'crm_test', table, [
      { name: 'lead_id', type: 'STRING' },
      { name: 'email', type: 'STRING' },
      { name: 'closed_at', type: 'TIMESTAMP' },
    ]);
    const at = new Date(Date.now() - 3600_000).toISOString();
    // More than the 10 MB the conversion may bill: BigQuery refuses the query.
    platforms.bigquery.insertRows(
      'acme-warehouse',
      'crm_test',
      table,
      Array.from({ length: 200_000 }, (_, i) => ({ lead_id: `lead-${i}`, email: `lead${i}@example.com`, closed_at: at })),
    );
    const conversion = await createConversion(org, 'growth', boss.uid, {
      name: 'Qualified leads',
      source: {
        type: 'bigquery',
        destinationId: warehouseId,
        projectId: 'acme-warehouse',
        mode: 'table',
        table: `acme-warehouse.crm_test.${table}`,
        sql: '',
        cursorColumn: 'closed_at',
        maximumBytesBilled: 10_000_000,
        columns: { eventId: 'lead_id', eventTime: 'closed_at', email: 'email' },
        eventName: 'Lead',
        schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
      },
      destination: { destinationId, ...SANDBOX_TARGETS.meta_ads },
      mapping: { events: [], value: { mode: 'event' }, identifiers: ['email'] },
    });
    for (let read = 0; read < 2; read++) {
      await requestRead(org, conversion.id);
      await readConversion(org, conversion.id);
    }
    expect((await openIncidents(org)).map((doc) => doc.get('kind'))).toEqual(['read_failed']);
    const emails = customerIo.messages.filter((message) => message.to === boss.email && message.transactionalMessageId === 'alert');
    expect(emails).toHaveLength(1);
    expect(emails[0]!.messageData.message).toMatch(/bill more bytes than this conversion allows/);
  });
});

describe('Slack', () => {
  test('http webhooks are refused unless the environment allows that origin (the sandbox)', async () => {
    const refused = await call(s.slack, {
      method: 'PUT',
      token: owner.token,
      query: { orgId },
      body: { webhookUrl: fakeSlack.webhookUrl },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.fieldErrors.webhookUrl[0]).toMatch(/https/);
    for (const webhookUrl of ['not a url', 'https://localhost/hook', 'https://10.0.0.1/hook', 'ftp://hooks.slack.com/x']) {
      expect((await call(s.slack, { method: 'PUT', token: owner.token, query: { orgId }, body: { webhookUrl } })).status).toBe(400);
    }
    expect((await call(s.slack, { token: owner.token, query: { orgId } })).body).toEqual({ configured: false, hint: null });
    const https = await call(s.slack, {
      method: 'PUT',
      token: owner.token,
      query: { orgId },
      body: { webhookUrl: 'https://hooks.slack.com/services/T000/B000/abcdefgh1234' },
    });
    expect(https.body).toEqual({ configured: true, hint: 'https://hooks.slack.com/…1234' });
  });

  test("any URL but Slack's incoming webhooks is a 400 that saves nothing (no internal host, other host or port)", async () => {
    const before = await call(s.slack, { token: owner.token, query: { orgId } });
    expect(before.body).toEqual({ configured: true, hint: 'https://hooks.slack.com/…1234' });
    for (const webhookUrl of [
      'https://localhost./services/T000/B000/abcdefgh9999',
      'https://x.localhost/services/T000/B000/abcdefgh9999',
      'https://127.0.0.1.nip.io/services/T000/B000/abcdefgh9999',
      'https://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default/token',
      'https://host.internal/services/T000/B000/abcdefgh9999',
      'https://evil.example/services/T000/B000/abcdefgh9999',
      'https://hooks.slack.com:8443/services/T000/B000/abcdefgh9999',
    ]) {
      const refused = await call(s.slack, { method: 'PUT', token: owner.token, query: { orgId }, body: { webhookUrl } });
      expect([webhookUrl, refused.status]).toEqual([webhookUrl, 400]);
      expect(refused.body.fieldErrors.webhookUrl).toEqual([
        'Enter the incoming-webhook URL Slack gave you: https://hooks.slack.com/services/…',
      ]);
    }
    expect((await call(s.slack, { token: owner.token, query: { orgId } })).body).toEqual(before.body);
  });

  test("names people chose reach Slack as text (no channel ping, no disguised link) and the email's data HTML-escaped", async () => {
    const evil = '<!channel> <https://evil.example/login|Reconnect Meta>';
    // Slack's escaping and HTML's agree on & < >; HTML escapes quotes too.
    const escaped = '&lt;!channel&gt; &lt;https://evil.example/login|Reconnect Meta&gt;';
    const receiver = await startFakeSlack();
    const origins = process.env.ALERTS_SLACK_HTTP_ORIGINS;
    process.env.ALERTS_SLACK_HTTP_ORIGINS = receiver.url;
    try {
      const boss = await createTestUser();
      const org = await createTestOrganization([[boss, 'owner']], { company_name: `Acme & "Co" ${evil}` });
      const saved = await call(s.slack, {
        method: 'PUT',
        token: boss.token,
        query: { orgId: org },
        body: { webhookUrl: receiver.webhookUrl },
      });
      expect(saved.status).toBe(200);
      expect((await call(s.slackTest, { method: 'POST', token: boss.token, query: { orgId: org } })).status).toBe(200);

      // Five conversions of that name failing at once: three alerts alone, then one digest of the other two.
      const conversions = adminDb().collection('organizations').doc(org).collection('conversions');
      for (let i = 0; i < 5; i++) {
        await conversions.doc(`named-${i}`).set({ name: evil, created_by: boss.uid });
        await raiseAlert({ orgId: org, kind: 'delivery_failures', subject: { type: 'conversion', id: `named-${i}` }, message: 'Refused.' });
      }
      await eventually(() => receiver.messages.some((message) => /2 alerts/.test(message.text)), 10_000);
      const texts = receiver.messages.map((message) => message.text);
      expect(texts).toHaveLength(5);
      for (const text of texts) {
        expect(text).not.toMatch(/<!channel>|<https:\/\/evil/);
        expect(text).toContain(`Acme &amp; "Co" ${escaped}`);
      }
      expect(texts.filter((text) => text.includes(`*Events are not sent or failed: ${escaped}*`))).toHaveLength(3);
      expect(texts.find((text) => /2 alerts/.test(text))!.split(escaped)).toHaveLength(4);

      const emails = customerIo.messages.filter((message) => message.to === boss.email);
      const single = emails.filter((message) => message.transactionalMessageId === 'alert');
      expect(single).toHaveLength(3);
      expect(single[0]!.messageData).toMatchObject({
        organization_name: `Acme &amp; &quot;Co&quot; ${escaped}`,
        title: `Events are not sent or failed: ${escaped}`,
      });
      const digest = emails.find((message) => message.transactionalMessageId === 'alert_digest')!;
      expect(digest.messageData.organization_name).toBe(`Acme &amp; &quot;Co&quot; ${escaped}`);
      expect(String(digest.messageData.summary)).toContain(escaped);
      expect(JSON.stringify(emails.map((message) => message.messageData))).not.toContain('<!channel>');
    } finally {
      if (origins === undefined) delete process.env.ALERTS_SLACK_HTTP_ORIGINS;
      else process.env.ALERTS_SLACK_HTTP_ORIGINS = origins;
      await receiver.close();
    }
  });

  test('the webhook receives the test message and alerts; members may not change it', async () => {
    process.env.ALERTS_SLACK_HTTP_ORIGINS = fakeSlack.url;
    expect(
      (await call(s.slack, { method: 'PUT', token: member.token, query: { orgId }, body: { webhookUrl: fakeSlack.webhookUrl } })).status,
    ).toBe(403);
    const saved = await call(s.slack, { method: 'PUT', token: admin.token, query: { orgId }, body: { webhookUrl: fakeSlack.webhookUrl } });
    expect(saved.status).toBe(200);
    expect(JSON.stringify(saved.body)).not.toContain('sandboxWebhookSecret');
    const stored = await adminDb().collection('organizations').doc(orgId).collection('alert_settings').doc('slack').get();
    expect(JSON.stringify(stored.data())).not.toContain('sandboxWebhookSecret');

    expect((await call(s.slackTest, { method: 'POST', token: member.token, query: { orgId } })).status).toBe(403);
    const tested = await call(s.slackTest, { method: 'POST', token: admin.token, query: { orgId } });
    expect(tested.status).toBe(200);
    expect(fakeSlack.messages.at(-1)!.text).toMatch(/Test message/);

    await raiseAlert({
      orgId,
      kind: 'paused_by_plan',
      subject: { type: 'organization', id: orgId },
      message: 'Two connections were paused.',
    });
    // Alone, or in a digest when this organization had many alerts lately.
    await eventually(() => fakeSlack.messages.some((message) => /Two connections were paused/.test(message.text)));

    fakeSlack.disable();
    const failed = await call(s.slackTest, { method: 'POST', token: admin.token, query: { orgId } });
    expect(failed.status).toBe(400);
    expect(failed.body.message).toMatch(/404/);
    // What the receiver answered (`no_service`) is not passed on: only what its status means.
    expect(failed.body.message).not.toContain('no_service');
    expect((await call(s.slack, { method: 'PUT', token: admin.token, query: { orgId }, body: { webhookUrl: null } })).body.configured).toBe(
      false,
    );
  });
});

describe('not a flood', () => {
  test('more than 3 alerts at once: 3 emails, then one digest of the rest', async () => {
    const boss = await createTestUser();
    const org = await createTestOrganization([[boss, 'owner']]);
    const kinds = ['needs_reauth', 'run_failed', 'delivery_failures', 'read_failed', 'events_parked'] as const;
    for (const kind of kinds)
      await raiseAlert({ orgId: org, kind, subject: { type: 'organization', id: org }, message: `Something: ${kind}.` });
    const mine = () => customerIo.messages.filter((message) => message.to === boss.email);
    expect(mine().filter((message) => message.transactionalMessageId === 'alert')).toHaveLength(3);
    await eventually(() => mine().some((message) => message.transactionalMessageId === 'alert_digest'));
    const digests = mine().filter((message) => message.transactionalMessageId === 'alert_digest');
    expect(digests).toHaveLength(1);
    expect(digests[0]!.messageData.count).toBe('2');
    expect(String(digests[0]!.messageData.summary)).toMatch(/read_failed|warehouse read/i);
    expect((await call(s.notifications, { token: boss.token, query: { orgId: org } })).body.unread).toBe(5);
  });
});
