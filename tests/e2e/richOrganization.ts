import { FieldValue, Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { sealCredential } from '@/lib/server/credentials';
import { createApp } from '@/lib/server/repos/apps';
import { createConnection } from '@/lib/server/repos/connections';
import { createConversion } from '@/lib/server/repos/conversions';
import { createInvitation } from '@/lib/server/repos/invitations';
import { createPayment } from '@/lib/server/repos/payments';
import type { DeliveryRow } from '@/lib/shared/conversions/conversion';
import { META_DEMO_TOKEN, SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { RESTRICTED_KEYS } from '@/sandbox/stripe/charges';
import { createTestOrganization, createTestUser, type TestUser } from '@/tests/e2e/helpers';
import { recordDelivery } from '@/lib/server/repos/deliveryLog';
import { saveReconciliation } from '@/lib/server/repos/reconciliation';
import { raiseAlert } from '@/lib/server/alerts';
import { countDay, type ReconcileDay } from '@/lib/shared/conversions/reconciliation';

/**
 * An organization with something in every list (sources of each ad platform, destinations, a connection
 * with a succeeded and a failed run and a chart, a conversion with deliveries and days counted by Meta, an
 * app, a payment account, a second member, two invitations and an unread alert), written straight to
 * Firestore: the pages read it as they would
 * anything a user made. `ids` replaces the placeholders of tests/e2e/routes.ts.
 */
export interface RichOrganization {
  user: TestUser;
  orgId: string;
  ids: Record<'app-1' | 'c-1' | 'cv-1' | 'd-1' | 'p-1' | 'inv-1' | 'google' | 'meta' | 'microsoft', string>;
}

const META_ACCOUNTS = [
  { id: '101', name: 'Acme Shoes (Meta)', currency: 'USD' },
  { id: '102', name: 'Acme Outlet (Meta)', currency: 'USD' },
];

/** A failed run's message: long enough to wrap, as the platforms' are. */
export const FAILED_RUN_MESSAGE =
  'Meta refused the report request: (#17) User request limit reached. The next run reads the same days again.';

async function integration(
  orgId: string,
  kind: 'sources' | 'destinations',
  id: string,
  fields: Record<string, unknown>,
  credential: Parameters<typeof sealCredential>[2] | null,
) {
  const org = adminDb().collection('organizations').doc(orgId);
  const batch = adminDb().batch();
  if (credential) batch.set(org.collection('credentials').doc(id), { ...sealCredential(orgId, id, credential), owner: `${kind}/${id}` });
  batch.set(org.collection(kind).doc(id), {
    accounts: [],
    settings: {},
    status: 'active',
    credential_id: credential ? id : 'none',
    connected_at: FieldValue.serverTimestamp(),
    created_at: FieldValue.serverTimestamp(),
    ...fields,
  });
  await batch.commit();
}

async function runOf(orgId: string, connectionId: string, outcome: 'succeeded' | 'failed', daysAgo: number) {
  const started = Timestamp.fromMillis(Date.now() - daysAgo * 86_400_000);
  const finished = Timestamp.fromMillis(started.toMillis() + 42_000);
  const failed = outcome === 'failed';
  const accounts = Object.fromEntries(
    META_ACCOUNTS.map((account, index) => [
      account.id,
      {
        name: account.name,
        rows_read: failed ? 0 : 28 + index,
        rows_written: failed ? 0 : 28 + index,
        calls: 2,
        failed: failed ? 1 : 0,
        error: failed ? FAILED_RUN_MESSAGE : null,
      },
    ]),
  );
  const ref = adminDb().collection('organizations').doc(orgId).collection('connections').doc(connectionId).collection('runs').doc();
  await ref.set({
    kind: 'scheduled',
    outcome,
    from: new Date(started.toMillis() - 28 * 86_400_000).toISOString().slice(0, 10),
    to: new Date(started.toMillis() - 86_400_000).toISOString().slice(0, 10),
    started_at: started,
    finished_at: finished,
    jobs_total: 2,
    jobs_done: 2,
    rows_read: failed ? 0 : 57,
    rows_written: failed ? 0 : 57,
    calls: 4,
    accounts,
    jobs: {},
    error: failed ? FAILED_RUN_MESSAGE : null,
  });
  return { id: ref.id, outcome, at: finished };
}

export async function richOrganization(): Promise<RichOrganization> {
  const user = await createTestUser();
  const colleague = await createTestUser();
  const orgId = await createTestOrganization(
    [
      [user, 'owner'],
      [colleague, 'admin'],
    ],
    { company_name: `Accessible Apparel ${user.uid.slice(5, 11)}` },
  );
  const uid = user.uid;
  const project = SANDBOX_MIXPANEL.projects.US;

  await integration(
    orgId,
    'sources',
    'src-meta',
    { platform: 'meta_ads', name: 'Meta Ads', account_name: 'Sandbox Marketer', accounts: META_ACCOUNTS },
    {
      type: 'meta',
      accessToken: META_DEMO_TOKEN,
      expiresAt: null,
    },
  );
  const needsReauth = { status: 'needs_reauth', status_reason: 'The login expired. Reconnect to keep your data flowing.' };
  await integration(
    orgId,
    'sources',
    'src-google',
    { platform: 'google_ads', name: 'Google Ads', account_name: user.email, ...needsReauth },
    null,
  );
  await integration(
    orgId,
    'sources',
    'src-microsoft',
    { platform: 'microsoft_ads', name: 'Microsoft Advertising', account_name: user.email, ...needsReauth },
    null,
  );
  await integration(
    orgId,
    'destinations',
    'dst-mixpanel',
    { platform: 'mixpanel', name: 'Product analytics', account_name: project.name, settings: { projectId: project.id, residency: 'US' } },
    { type: 'mixpanel', username: SANDBOX_MIXPANEL.username, secret: SANDBOX_MIXPANEL.secret, projectId: project.id, residency: 'US' },
  );
  await integration(
    orgId,
    'destinations',
    'dst-meta',
    { platform: 'meta_ads', name: 'Meta Ads', account_name: 'Sandbox Marketer', accounts: [META_ACCOUNTS[0]] },
    { type: 'meta', accessToken: META_DEMO_TOKEN, expiresAt: null },
  );

  const connection = await createConnection(orgId, {
    name: 'Meta performance → Mixpanel',
    source: { sourceId: 'src-meta', platform: 'meta_ads', accounts: META_ACCOUNTS.map(({ id, name }) => ({ id, name })) },
    destination: { destinationId: 'dst-mixpanel', platform: 'mixpanel', projectId: project.id, dataset: null, table: null },
    level: 'campaign',
    schedule: { every: 'daily', at: '06:00', timeZone: 'UTC' },
    lookbackDays: 28,
    // Not due while the test looks: the worker leaves the seeded history as it is.
    nextRunAt: new Date(Date.now() + 7 * 86_400_000),
    uid,
  });
  await runOf(orgId, connection.id, 'succeeded', 2);
  const failed = await runOf(orgId, connection.id, 'failed', 1);
  await adminDb()
    .collection('organizations')
    .doc(orgId)
    .collection('connections')
    .doc(connection.id)
    .update({ last_run: { id: failed.id, kind: 'scheduled', outcome: 'failed', at: failed.at } });
  for (const [index, account] of META_ACCOUNTS.entries()) {
    const days = new Map<string, { spend: number; clicks: number; impressions: number }>();
    for (let daysAgo = 14; daysAgo >= 1; daysAgo--) {
      const date = new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
      days.set(date, { spend: 40 + index * 15 + daysAgo, clicks: 120 + daysAgo, impressions: 4000 + daysAgo * 10 });
    }
    // The chart's days, as a settled job leaves them (repos/ledger.ts).
    const daysOf = adminDb().collection(`organizations/${orgId}/connections/${connection.id}/days`);
    await Promise.all(
      [...days].map(([date, figures]) => daysOf.doc(date).set({ date, accounts: { [account.id]: figures } }, { merge: true })),
    );
  }

  const app = await createApp(orgId, uid, {
    name: 'Storefront',
    websiteUrl: 'https://store.example',
    gtmContainerId: 'GTM-A11Y123',
    payloadUrls: ['/checkout/thank-you'],
  });
  const conversion = await createConversion(orgId, {
    name: 'Storefront leads → Meta',
    source: { type: 'app', appId: app.id },
    destination: {
      destinationId: 'dst-meta',
      platform: 'meta_ads',
      accountId: '101',
      targetId: '555000111',
      targetName: 'Acme Shoes Pixel',
    },
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'phone', 'name', 'externalId', 'clickIds', 'context'] },
    uid,
  });
  const rows: DeliveryRow[] = [
    { id: 'evt_1', status: 'delivered', maskedEmail: 'a***@store.example' },
    {
      id: 'evt_2',
      status: 'rejected',
      reason: 'Meta refused the request: Event Timestamp Too Old: event_time is more than 7 days ago.',
      maskedEmail: 'g***@store.example',
    },
    { id: 'evt_3', status: 'not_sent', reason: 'No identifier Meta can match (email, phone, fbc/fbp, or IP with user agent).' },
  ];
  await recordDelivery(orgId, conversion.id, { test: false, latencyMs: 210, rows });
  // What Meta counted, as the reading job stores it: a final day with a gap and its explanation, and today.
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const pixel = (count: number) => ({ count, scope: 'every server sender of Purchase to the pixel' });
  const counted: ReconcileDay[] = [
    { date: yesterday, sent: 38, accepted: 38, platform: { received: pixel(30), attributed: null }, final: true },
    { date: today, sent: 6, accepted: 6, platform: { received: null, attributed: null }, final: false },
  ].map((figures) => countDay('meta_ads', figures, today));
  await saveReconciliation(
    orgId,
    conversion.id,
    counted,
    {
      state: 'read',
      message: null,
      week: { sent: 38, received: counted[0]!.received, share: counted[0]!.received / 38 },
      timeZone: 'America/New_York',
    },
    new Date(),
  );

  const stripeKey = Object.keys(RESTRICTED_KEYS).find((key) => RESTRICTED_KEYS[key]!.includes('charges_read'))!;
  const payment = await createPayment(orgId, uid, {
    name: 'Storefront payments',
    livemode: false,
    keyPrefix: `${stripeKey.slice(0, 12)}…`,
    credentialId: 'pay-stripe',
    sealedCredential: sealCredential(orgId, 'pay-stripe', { type: 'stripe', apiKey: stripeKey }),
    defaultCountry: null,
  });

  const organizationName = `Accessible Apparel`;
  const invitation = await createInvitation({
    orgId,
    organizationName,
    email: `analyst.${user.uid.slice(5, 11)}@example.test`,
    role: 'member',
    inviter: { uid, email: user.email },
  });
  await createInvitation({
    orgId,
    organizationName,
    email: `cfo.${user.uid.slice(5, 11)}@example.test`,
    role: 'admin',
    inviter: { uid, email: user.email },
  });

  // An unread alert: the shell counts it (beside Notifications, and on the folded menu's button on phones).
  await raiseAlert({
    orgId,
    kind: 'needs_reauth',
    subject: { type: 'source', id: 'src-google' },
    message: 'Google Ads has disconnected SignalBridge from this account. Reconnect to keep your data flowing.',
  });

  return {
    user,
    orgId,
    ids: {
      'app-1': app.id,
      'c-1': connection.id,
      'cv-1': conversion.id,
      'd-1': 'dst-mixpanel',
      'p-1': payment.id,
      'inv-1': invitation.id,
      google: 'src-google',
      meta: 'src-meta',
      microsoft: 'src-microsoft',
    },
  };
}

/** A route of tests/e2e/routes.ts with the organization's real ids in place of the placeholders. */
export function realPath(route: string, { orgId, ids }: Pick<RichOrganization, 'orgId' | 'ids'>): string {
  const sourcePlatform = /\/source\/s-1\/(google|meta|microsoft)\//.exec(route)?.[1] as 'google' | 'meta' | 'microsoft' | undefined;
  let path = route.replace('{org}', orgId);
  if (sourcePlatform) path = path.replace('/s-1/', `/${ids[sourcePlatform]}/`);
  for (const placeholder of ['app-1', 'c-1', 'cv-1', 'd-1', 'p-1', 'inv-1'] as const) {
    path = path.replace(new RegExp(`/${placeholder}(?=/|$)`), `/${ids[placeholder]}`);
  }
  return path;
}
