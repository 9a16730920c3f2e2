import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  assertFails,
  assertSucceeds,
  initializeTestEnvironment,
  type RulesTestEnvironment,
} from '@firebase/rules-unit-testing';
import { collection, deleteDoc, doc, getDoc, getDocs, setDoc, setLogLevel } from 'firebase/firestore';

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
    await setDoc(doc(db, 'invitations/i1'), { email: 'bob@example.test', organization_id: 'acme' });
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

  test('credentials and integration objects are server-only, even for members', async () => {
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/credentials/google')));
    await assertFails(getDoc(doc(as('alice'), 'organizations/acme/sources/s1')));
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
