import { applicationDefault, cert, getApp, getApps, initializeApp, type App } from 'firebase-admin/app';
import { getAuth, type Auth } from 'firebase-admin/auth';
import { getFirestore, type Firestore } from 'firebase-admin/firestore';
import { serverEnv } from '@/lib/server/env';
import { installCostTrace } from '@/lib/server/costTrace';
import { installWriteTrace } from '@/lib/server/writeTrace';

function adminApp(): App {
  if (getApps().length) return getApp();
  const env = serverEnv();
  const usesEmulators = Boolean(env.FIREBASE_AUTH_EMULATOR_HOST || env.FIRESTORE_EMULATOR_HOST);
  return initializeApp({
    projectId: env.FIREBASE_PROJECT_ID,
    // The emulators need no credentials; a real project takes a key or Application Default Credentials.
    ...(usesEmulators
      ? {}
      : { credential: env.FIREBASE_SERVICE_ACCOUNT ? cert(JSON.parse(env.FIREBASE_SERVICE_ACCOUNT)) : applicationDefault() }),
  });
}

export function adminAuth(): Auth {
  return getAuth(adminApp());
}

/**
 * Default settings on purpose: middleware and API routes are separate bundles in dev that share one
 * admin app, and Firestore settings can be set only once per instance.
 */
export function adminDb(): Firestore {
  // The bench counts writes per document (lib/server/writeTrace.ts); unset everywhere else.
  if (process.env.FIRESTORE_WRITE_TRACE_DIR) installWriteTrace(process.env.FIRESTORE_WRITE_TRACE_DIR);
  // The bench's cost section counts reads, writes and Pub/Sub bytes (lib/server/costTrace.ts); unset everywhere else.
  if (process.env.COST_TRACE_DIR) installCostTrace(process.env.COST_TRACE_DIR);
  return getFirestore(adminApp());
}
