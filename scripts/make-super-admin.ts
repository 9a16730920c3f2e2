/**
 * `npm run make-super-admin -- <email> [--revoke]`: gives (or takes back) the platform role.
 * Against the running dev emulators by default; with FIREBASE_PROJECT_ID and credentials set and
 * no emulator hosts, against that real project.
 */
import { DEV_PORTS, portsFromEnv, stackEnv } from '@/scripts/lib/stack';

async function main() {
  const [email, flag] = process.argv.slice(2);
  if (!email) throw new Error('Usage: npm run make-super-admin -- <email> [--revoke]');
  const realProject = process.env.FIREBASE_PROJECT_ID && !process.env.FIREBASE_PROJECT_ID.startsWith('demo-');
  if (!realProject) Object.assign(process.env, { ...stackEnv(portsFromEnv(DEV_PORTS)), ...process.env });

  const { FieldValue } = await import('firebase-admin/firestore');
  const { adminAuth, adminDb } = await import('@/lib/server/firebaseAdmin');
  const user = await adminAuth().getUserByEmail(email);
  const revoke = flag === '--revoke';
  await adminDb()
    .collection('users')
    .doc(user.uid)
    .set({ uid: user.uid, email, role: revoke ? FieldValue.delete() : 'super_admin' }, { merge: true });
  console.log(`${email} ${revoke ? 'is no longer' : 'is now'} a super admin (takes effect at their next sign-in).`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
