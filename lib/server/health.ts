import { adminAuth, adminDb } from '@/lib/server/firebaseAdmin';

const TIMEOUT_MS = 3000;

async function answers(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether Firebase Auth and Firestore answer, each within a few seconds. */
export async function checkHealth() {
  const [auth, firestore] = await Promise.all([
    answers(() => adminAuth().listUsers(1)),
    answers(() => adminDb().collection('health').doc('probe').get()),
  ]);
  return { auth, firestore };
}
