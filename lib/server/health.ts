import { adminAuth } from '@/lib/server/firebaseAdmin';
import { readProbe } from '@/lib/server/repos/probe';
import { pubsub, TOPICS } from '@/lib/server/queue/pubsub';

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

const firestoreAnswers = () => answers(readProbe);
const pubsubAnswers = () => answers(() => pubsub().topic(TOPICS.conversions).getMetadata());

/**
 * Whether this instance can serve: Firestore answers and the conversions topic, where every accepted
 * event is published before its 202, is reachable (a publish-side metadata read, no message).
 */
export async function checkReadiness() {
  const [firestore, pubsubReachable] = await Promise.all([firestoreAnswers(), pubsubAnswers()]);
  return { firestore, pubsub: pubsubReachable };
}

/** Each service the app needs, for the super admins' detail: Auth, Firestore and Pub/Sub, each asked once. */
export async function checkServices() {
  const [auth, firestore, pubsubReachable] = await Promise.all([
    answers(() => adminAuth().listUsers(1)),
    firestoreAnswers(),
    pubsubAnswers(),
  ]);
  return { auth, firestore, pubsub: pubsubReachable };
}
