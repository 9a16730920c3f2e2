import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assertFails, assertSucceeds, initializeTestEnvironment, type RulesTestEnvironment } from '@firebase/rules-unit-testing';
import { collection, deleteDoc, doc, getDoc, getDocs, setDoc, setLogLevel } from 'firebase/firestore';
import type Stripe from 'stripe';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { applyStripeEvent, getOrCreateCustomer } from '@/lib/server/services/billing';
import { startFakeStripe, stripeEnv } from '@/sandbox/stripe';
import { createTestOrganization, createTestUser } from '@/tests/fixtures/firebase';

// Denied writes are the point here; the SDK need not warn about each one.
setLogLevel('silent');

let env: RulesTestEnvironment;

beforeAll(async () => {
  const [host = '127.0.0.1', port = '8080'] = process.env.FIRESTORE_EMULATOR_HOST!.split(':');
  env = await initializeTestEnvironment({
    projectId: 'demo-rules-test',
    firestore: { rules: readFileSync(path.join(process.cwd(), 'firestore.rules'), 'utf8'), host, port: Number(port) },
  });
  await env.clearFirestore();
  await env.withSecurityRulesDisabled(async (context) => {
    const db = context.firestore();
    await setDoc(doc(db, 'users/alice'), { email: 'alice@example.test' });
    await setDoc(doc(db, 'users/bob'), { email: 'bob@example.test' });
    await setDoc(doc(db, 'organizations/acme'), { name: 'Acme' });
    await setDoc(doc(db, 'organizations/acme/members/alice'), { role: 'owner' });
    await setDoc(doc(db, 'organizations/acme/credentials/google'), { refresh_token: 'encrypted' });
    await setDoc(doc(db, 'organizations/acme/sources/s1'), { name: 'Google Ads' });
    await setDoc(doc(db, 'organizations/acme/connections/c1'), { name: 'Ads to BigQuery' });
    await setDoc(doc(db, 'organizations/acme/connections/c1/runs/r1'), { outcome: 'running', jobs_done: 3, jobs_total: 25 });
    await setDoc(doc(db, 'organizations/acme/connections/c1/days/2026-11-01'), { accounts: {} });
    await setDoc(doc(db, 'organizations/acme/private/billing'), { customer_id: 'cus_acme', subscription_id: 'sub_acme' });
    await setDoc(doc(db, 'stripe_customers/cus_acme'), { organization_id: 'acme' });
    await setDoc(doc(db, 'invitations/i1'), { email: 'bob@example.test', organization_id: 'acme' });
    await setDoc(doc(db, 'organizations/acme/notifications/n1'), { title: 'A login needs reconnecting', read_by: [] });
    await setDoc(doc(db, 'organizations/acme/alert_settings/slack'), { sealed_url: 'v1.sealed' });
  });
});
afterAll(() => env.cleanup());

const as = (uid: string) => env.authenticatedContext(uid).firestore();

describe('reads', () => {
  test('a user reads their own record, not anyone else’s', async () => {
    await assertSucceeds(getDoc(doc(as('alice'), 'users/alice')));
    await assertFails(getDoc(doc(as('alice'), 'users/bob')));
  });

  test('members read their organization and its member list; others cannot', async () => {
    await assertSucceeds(getDoc(doc(as('alice'), 'organizations/acme')));
    await assertSucceeds(getDocs(collection(as('alice'), 'organizations/acme/members')));
    await assertFails(getDoc(doc(as('bob'), 'organizations/acme')));
    await assertFails(getDocs(collection(as('bob'), 'organizations/acme/members')));
  });

  test("members watch a connection's runs (the backfill's progress); the connection itself and others stay server-only", async () => {
    await assertSucceeds(getDoc(doc(as('alice'), 'organizations/acme/connections/c1/runs/r1')));
    await assertFails(getDoc(doc(as('bob'), 'organizations/acme/connections/c1/runs/r1')));
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/connections/c1')));
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/connections/c1/days/2026-11-01')));
    await assertFails(setDoc(doc(as('alice'), 'organizations/acme/connections/c1/runs/r1'), { outcome: 'cancelled' }));
  });

  test('credentials and integration objects are server-only, even for members', async () => {
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/credentials/google')));
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/sources/s1')));
  });

  test('alerts are read through the API (membership checked there): notices, incidents and the Slack webhook are server-only', async () => {
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/notifications/n1')));
    await assertFails(getDocs(collection(as('alice'), 'organizations/acme/incidents')));
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/alert_settings/slack')));
    await assertFails(setDoc(doc(as('alice'), 'organizations/acme/notifications/n1'), { read_by: ['alice'] }));
  });

  test('billing identifiers are server-only, even for owners', async () => {
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/private/billing')));
    await assertFails(getDocs(collection(as('alice'), 'organizations/acme/private')));
    await assertFails(getDoc(doc(as('alice'), 'stripe_customers/cus_acme')));
  });

  test('signed-out visitors read nothing; invitations are server-only', async () => {
    const anonymous = env.unauthenticatedContext().firestore();
    await assertFails(getDoc(doc(anonymous, 'organizations/acme')));
    await assertFails(getDoc(doc(anonymous, 'users/alice')));
    await assertFails(getDoc(doc(as('bob'), 'invitations/i1')));
  });
});

describe('writes', () => {
  test('no client write anywhere, not even to one’s own records', async () => {
    await assertFails(setDoc(doc(as('alice'), 'users/alice'), { role: 'super_admin' }));
    await assertFails(setDoc(doc(as('alice'), 'organizations/acme'), { name: 'Renamed' }));
    await assertFails(setDoc(doc(as('bob'), 'organizations/acme/members/bob'), { role: 'owner' }));
    await assertFails(deleteDoc(doc(as('alice'), 'organizations/acme/members/alice')));
    await assertFails(setDoc(doc(as('alice'), 'organizations/new'), { name: 'New' }));
  });
});

describe('what the server writes about billing', () => {
  // The app's own project: documents written by the server code, read through the rules as a browser would.
  let app: RulesTestEnvironment;
  let closeStripe: () => Promise<void>;

  beforeAll(async () => {
    const [host = '127.0.0.1', port = '8080'] = process.env.FIRESTORE_EMULATOR_HOST!.split(':');
    app = await initializeTestEnvironment({
      projectId: process.env.GCLOUD_PROJECT ?? process.env.FIREBASE_PROJECT_ID,
      firestore: { rules: readFileSync(path.join(process.cwd(), 'firestore.rules'), 'utf8'), host, port: Number(port) },
    });
    const stripe = await startFakeStripe({ webhookUrl: 'http://127.0.0.1:9/' });
    closeStripe = stripe.close;
    Object.assign(process.env, stripeEnv(stripe));
  });
  afterAll(async () => {
    await app.cleanup();
    await closeStripe();
  });

  test('a member reads the subscription status and plan, never the Stripe ids', async () => {
    const [owner, member] = await Promise.all([createTestUser(), createTestUser()]);
    const orgId = await createTestOrganization(
      [
        [owner, 'owner'],
        [member, 'member'],
      ],
      { subscription: null },
    );
    const organization = (await adminDb().doc(`organizations/${orgId}`).get()).data()!;
    const customerId = await getOrCreateCustomer(orgId, organization, { email: owner.email, userId: owner.uid });
    const subscription = { id: 'sub_rulesTest', object: 'subscription', customer: customerId, status: 'active', items: { data: [] } };
    const event = {
      id: `evt_rules_${orgId}`,
      object: 'event',
      type: 'customer.subscription.created',
      created: Math.floor(Date.now() / 1000),
      data: { object: subscription },
    };
    expect(await applyStripeEvent(event as unknown as Stripe.Event)).toBe('applied');

    const browser = app.authenticatedContext(member.uid).firestore();
    const snapshot = await assertSucceeds(getDoc(doc(browser, 'organizations', orgId)));
    expect(snapshot.get('subscription')).toMatchObject({ status: 'active' });
    expect(JSON.stringify(snapshot.data())).not.toMatch(new RegExp(`${customerId}|sub_rulesTest`));
    await assertFails(getDoc(doc(browser, 'organizations', orgId, 'private', 'billing')));
    await assertFails(getDoc(doc(browser, 'stripe_customers', customerId)));
  });
});
