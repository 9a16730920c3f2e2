import { FieldValue } from 'firebase-admin/firestore';
import { adminAuth, adminDb } from '@/lib/server/firebaseAdmin';
import { sealCredential } from '@/lib/server/credentials';
import { createConnection } from '@/lib/server/repos/connections';
import type { DeliveryRow } from '@/lib/shared/conversions/conversion';
import { createConversion } from '@/lib/server/repos/conversions';
import { saveReconciliation } from '@/lib/server/repos/reconciliation';
import { countDay, countedShare, figureScope, isFinal, windowDays } from '@/lib/shared/conversions/reconciliation';
import { DEMO, DEMO_META_PIXEL } from '@/scripts/lib/demo';
import { Timestamp } from 'firebase-admin/firestore';
import { META_DEMO_TOKEN, SANDBOX_MIXPANEL } from '@/sandbox/platforms';
import { RESTRICTED_KEYS } from '@/sandbox/stripe/charges';
import { deliveryRecordData } from '@/lib/server/repos/deliveryLog';

async function ensureDemoUser() {
  const auth = adminAuth();
  try {
    const existing = await auth.getUser(DEMO.uid);
    // Re-running resets the password, so the printed credentials always work.
    await auth.updateUser(existing.uid, { email: DEMO.email, password: DEMO.password, displayName: DEMO.fullName });
  } catch (error) {
    if ((error as { code?: string }).code !== 'auth/user-not-found') throw error;
    await auth.createUser({
      uid: DEMO.uid,
      email: DEMO.email,
      password: DEMO.password,
      displayName: DEMO.fullName,
      emailVerified: true,
    });
  }
}

/** The demo user, owner of the demo organization with an active subscription. Safe to run again. */
export async function seedDemo(): Promise<void> {
  await ensureDemoUser();
  const db = adminDb();
  const org = db.collection('organizations').doc(DEMO.orgId);
  const batch = db.batch();
  batch.set(
    db.collection('users').doc(DEMO.uid),
    { email: DEMO.email, fullName: DEMO.fullName, uid: DEMO.uid, photoURL: '', created_at: FieldValue.serverTimestamp() },
    { merge: true },
  );
  batch.set(
    org,
    {
      name: DEMO.orgName,
      company_name: DEMO.orgName,
      name_lower: DEMO.orgName.toLowerCase(),
      logo: null,
      company_logo: null,
      is_demo: true,
      created_by: DEMO.uid,
      created_at: FieldValue.serverTimestamp(),
      // Only what members may read; Stripe ids would live in organizations/{orgId}/private/billing (server only).
      subscription: { status: 'active', plan: 'growth', current_period_end: '2099-12-31T00:00:00.000Z', past_due_since: null },
    },
    { merge: true },
  );
  batch.set(
    org.collection('members').doc(DEMO.uid),
    { uid: DEMO.uid, role: 'owner', email: DEMO.email, fullName: DEMO.fullName, joined_at: FieldValue.serverTimestamp() },
    { merge: true },
  );
  await batch.commit();
  if (process.env.CREDENTIALS_ENCRYPTION_KEY) {
    await seedDemoIntegrations();
    await seedDemoConversion();
    await seedDemoConnection();
    await seedDemoWarehouseConversion();
  }
}

/**
 * What needs no consent click: a Mixpanel destination and a Stripe payment account with the sandbox's
 * credentials, and an app that sends to Mixpanel. Only documents that are missing are written, so the
 * demo keeps what a visitor changed. (OAuth logins live in the sandbox's memory: connect those by clicking.)
 */
async function seedDemoIntegrations() {
  const org = adminDb().collection('organizations').doc(DEMO.orgId);
  const now = FieldValue.serverTimestamp();
  const project = SANDBOX_MIXPANEL.projects.US;
  const stripeKey = Object.keys(RESTRICTED_KEYS).find((key) => RESTRICTED_KEYS[key]!.includes('charges_read'))!;
  const documents: Array<[FirebaseFirestore.DocumentReference, Record<string, unknown>]> = [
    [
      org.collection('credentials').doc('demo-mixpanel'),
      {
        ...sealCredential(DEMO.orgId, 'demo-mixpanel', {
          type: 'mixpanel',
          username: SANDBOX_MIXPANEL.username,
          secret: SANDBOX_MIXPANEL.secret,
          projectId: project.id,
          residency: 'US',
        }),
        owner: 'destinations/demo-mixpanel',
      },
    ],
    [
      org.collection('destinations').doc('demo-mixpanel'),
      {
        platform: 'mixpanel',
        name: 'Product analytics',
        account_name: project.name,
        status: 'active',
        credential_id: 'demo-mixpanel',
        accounts: [],
        settings: { projectId: project.id, residency: 'US' },
        connected_by: DEMO.uid,
        connected_at: now,
        created_at: now,
      },
    ],
    [
      org.collection('credentials').doc('demo-stripe'),
      { ...sealCredential(DEMO.orgId, 'demo-stripe', { type: 'stripe', apiKey: stripeKey }), owner: 'payments/demo-stripe' },
    ],
    [
      org.collection('payments').doc('demo-stripe'),
      {
        name: 'Demo store payments',
        provider: 'stripe',
        livemode: false,
        key_prefix: `${stripeKey.slice(0, 12)}…`,
        credential_id: 'demo-stripe',
        connected_by: DEMO.uid,
        connected_at: now,
      },
    ],
    [
      org.collection('apps').doc('demo-store'),
      {
        name: 'Demo store',
        website_url: 'https://store.example',
        gtm_container_id: 'GTM-DEMO123',
        payload_urls: ['/checkout/thank-you', '/signup/complete'],
        targets: {},
        bigquery_destination_id: null,
        mixpanel_destination_id: 'demo-mixpanel',
        destination_ids: ['demo-mixpanel'],
        submission_key: null,
        created_by: DEMO.uid,
        created_at: now,
      },
    ],
  ];
  const existing = await adminDb().getAll(...documents.map(([ref]) => ref));
  const batch = adminDb().batch();
  documents.forEach(([ref, data], index) => {
    if (!existing[index]!.exists) batch.set(ref, data);
  });
  await batch.commit();
}

/**
 * A working conversion: the demo store's form submissions → the sandbox's Meta pixel, through a Meta
 * destination whose login the sandbox knows from the start (META_DEMO_TOKEN), with a day of delivery
 * history — mostly delivered, a few rejected or not sent with their reasons — so a newcomer sees the
 * log without wiring a website. Written once; a visitor's changes are kept.
 */
async function seedDemoConversion() {
  const org = adminDb().collection('organizations').doc(DEMO.orgId);
  const conversion = org.collection('conversions').doc('demo-leads');
  if ((await conversion.get()).exists) return;
  const now = Date.now();
  const at = (msAgo: number) => Timestamp.fromMillis(now - msAgo);
  const expires = Timestamp.fromMillis(now + 30 * 24 * 3600 * 1000);
  const batch = adminDb().batch();
  batch.set(org.collection('credentials').doc('demo-meta'), {
    ...sealCredential(DEMO.orgId, 'demo-meta', { type: 'meta', accessToken: META_DEMO_TOKEN, expiresAt: null }),
    owner: 'destinations/demo-meta',
  });
  batch.set(org.collection('destinations').doc('demo-meta'), {
    platform: 'meta_ads',
    name: 'Meta Ads',
    account_name: 'Sandbox Marketer',
    status: 'active',
    credential_id: 'demo-meta',
    accounts: [{ id: '101', name: 'Acme Shoes (Meta)', currency: 'USD' }],
    settings: {},
    connected_by: DEMO.uid,
    connected_at: at(0),
    created_at: at(0),
  });
  const people = ['ada', 'grace', 'alan', 'katherine', 'edsger', 'barbara', 'donald', 'margaret'];
  for (let hoursAgo = 23; hoursAgo >= 0; hoursAgo -= 1) {
    const time = now - hoursAgo * 3600 * 1000 - 20 * 60 * 1000;
    const rows = people.slice(0, 3 + (hoursAgo % 6)).map((person, index) => {
      const id = `demo_${hoursAgo}_${index}`;
      const maskedEmail = `${person[0]}***@store.example`;
      if (index === 4 && hoursAgo % 5 === 0)
        return {
          id,
          status: 'rejected',
          reason: 'Meta refused the request: Event Timestamp Too Old: event_time is more than 7 days ago.',
          maskedEmail,
        };
      if (index === 5 && hoursAgo % 4 === 0)
        return { id, status: 'not_sent', reason: 'No identifier Meta can match (email, phone, fbc/fbp, or IP with user agent).' };
      return { id, status: 'delivered', maskedEmail };
    });
    const record = deliveryRecordData({
      at: new Date(time),
      test: false,
      latencyMs: 180 + ((hoursAgo * 37) % 140),
      rows: rows as DeliveryRow[],
    });
    const { counts } = record;
    batch.set(conversion.collection('deliveries').doc(`demo-${hoursAgo}`), { ...record, expires_at: expires });
    const hour = new Date(time).toISOString().slice(0, 13);
    batch.set(
      conversion.collection('hours').doc(hour),
      { hour, delivered: counts.delivered, failed: counts.rejected + counts.not_sent, expires_at: expires },
      { merge: true },
    );
  }
  await batch.commit();
  // The conversion itself as the app makes one, then the time of its last seeded delivery.
  await createConversion(DEMO.orgId, {
    id: 'demo-leads',
    name: 'Store leads → Meta',
    source: { type: 'app', appId: 'demo-store' },
    destination: DEMO_META_PIXEL,
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'phone', 'name', 'externalId', 'clickIds', 'context'] },
    uid: DEMO.uid,
  });
  await conversion.update({ last_delivery_at: at(20 * 60 * 1000) });
  await seedDemoReconciliation();
}

/**
 * "Counted by the platform" of the demo conversion, as a read would have stored it: two weeks in which Meta
 * received what we sent but for a refused lead every fifth day, and one day four days ago when the pixel counted
 * 12 % fewer Lead server events than this conversion alone sent (a loss); on the other days the pixel's count is a
 * little over ours (other senders), and what Meta attributed is the whole ad account's. Today is not final yet.
 * The worker's reads refresh the recent days.
 */
async function seedDemoReconciliation() {
  const now = new Date();
  const dates = windowDays(now, 14);
  const today = dates.at(-1)!;
  const scope = (figure: 'received' | 'attributed') =>
    figureScope('meta_ads', figure, { events: ['Lead'], target: DEMO_META_PIXEL.targetName })!;
  const days = dates.map((date, index) => {
    const sent = 40 + ((index * 7) % 13);
    const accepted = sent - (index % 5 === 0 ? 1 : 0);
    const pixel = index === dates.length - 5 ? Math.round(accepted * 0.88) : accepted + 3 + (index % 4);
    const final = isFinal('meta_ads', date, now);
    const platform = {
      received: { count: pixel, scope: scope('received') },
      attributed: { count: final ? 120 + ((index * 11) % 40) : 0, scope: scope('attributed') },
    };
    return countDay('meta_ads', { date, sent, accepted, platform, final }, today);
  });
  await saveReconciliation(DEMO.orgId, 'demo-leads', days, { state: 'read', message: null, week: countedShare(days, now) }, now);
}

/**
 * A working connection: Meta ad performance (the sandbox's two ad accounts, through the login the
 * sandbox knows from the start) → the demo Mixpanel project, hourly, re-reading 28 days. It is due at
 * once, so the worker's first tick after `npm run dev` writes four weeks of days: the chart and the
 * run history have something to show at first login. Written once; a visitor's changes are kept.
 */
async function seedDemoConnection() {
  const org = adminDb().collection('organizations').doc(DEMO.orgId);
  const source = org.collection('sources').doc('demo-meta-ads');
  if ((await source.get()).exists) return;
  const accounts = [
    { id: '101', name: 'Acme Shoes (Meta)', currency: 'USD' },
    { id: '102', name: 'Acme Outlet (Meta)', currency: 'USD' },
  ];
  const batch = adminDb().batch();
  batch.set(org.collection('credentials').doc('demo-meta-source'), {
    ...sealCredential(DEMO.orgId, 'demo-meta-source', { type: 'meta', accessToken: META_DEMO_TOKEN, expiresAt: null }),
    owner: 'sources/demo-meta-ads',
  });
  batch.set(source, {
    platform: 'meta_ads',
    name: 'Meta Ads',
    account_name: 'Sandbox Marketer',
    status: 'active',
    credential_id: 'demo-meta-source',
    accounts,
    settings: {},
    connected_by: DEMO.uid,
    connected_at: FieldValue.serverTimestamp(),
    created_at: FieldValue.serverTimestamp(),
  });
  await batch.commit();
  await createConnection(DEMO.orgId, {
    name: 'Meta performance → Mixpanel',
    source: { sourceId: 'demo-meta-ads', platform: 'meta_ads', accounts: accounts.map(({ id, name }) => ({ id, name })) },
    destination: {
      destinationId: 'demo-mixpanel',
      platform: 'mixpanel',
      projectId: SANDBOX_MIXPANEL.projects.US.id,
      dataset: null,
      table: null,
    },
    level: 'campaign',
    schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
    lookbackDays: 28,
    nextRunAt: new Date(),
    uid: DEMO.uid,
  });
}

/**
 * A conversion read from the warehouse: the demo Mixpanel project's "Subscription Renewed" events
 * (seeded by the sandbox) → the sandbox's Meta pixel, hourly. Its first read is due at once, so the
 * worker delivers the last week's renewals within a minute of `npm run dev`. Written once.
 */
async function seedDemoWarehouseConversion() {
  const conversion = adminDb().collection('organizations').doc(DEMO.orgId).collection('conversions').doc('demo-renewals');
  if ((await conversion.get()).exists) return;
  await createConversion(DEMO.orgId, {
    id: 'demo-renewals',
    name: 'Mixpanel renewals → Meta',
    source: {
      type: 'mixpanel',
      destinationId: 'demo-mixpanel',
      events: ['Subscription Renewed'],
      columns: {
        eventId: '$insert_id',
        eventTime: 'time',
        eventName: 'event',
        email: '$email',
        externalId: 'distinct_id',
        gclid: 'gclid',
        fbclid: 'fbclid',
        value: 'amount',
        currency: 'currency',
      },
      eventName: 'Purchase',
      schedule: { every: 'hourly', at: '06:00', timeZone: 'UTC' },
    },
    destination: DEMO_META_PIXEL,
    mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'externalId', 'clickIds'] },
    uid: DEMO.uid,
  });
}
