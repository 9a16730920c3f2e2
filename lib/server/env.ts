import { z } from 'zod';

const serverEnvSchema = z.object({
  FIREBASE_PROJECT_ID: z.string().min(1).default('demo-signalbridge'),
  /** A service account key as JSON; without it, Application Default Credentials are used. */
  FIREBASE_SERVICE_ACCOUNT: z.string().optional(),
  FIREBASE_AUTH_EMULATOR_HOST: z.string().optional(),
  FIRESTORE_EMULATOR_HOST: z.string().optional(),
});

export type ServerEnv = z.infer<typeof serverEnvSchema>;

let cached: ServerEnv | undefined;

/** Parsed once per process so a misconfiguration fails loudly at the first request. */
export function serverEnv(): ServerEnv {
  if (!cached) {
    const env = serverEnvSchema.parse({
      ...process.env,
      FIREBASE_PROJECT_ID:
        process.env.FIREBASE_PROJECT_ID || process.env.NEXT_PUBLIC_FIREBASE_PROJECT_ID || undefined,
    });
    const usesEmulators = Boolean(env.FIREBASE_AUTH_EMULATOR_HOST || env.FIRESTORE_EMULATOR_HOST);
    // firebase-admin accepts unsigned tokens while an emulator host is set: only ever for demo- projects.
    if (usesEmulators && !env.FIREBASE_PROJECT_ID.startsWith('demo-')) {
      throw new Error('Emulator hosts are set for a real Firebase project; unset them or use a demo- project id');
    }
    cached = env;
  }
  return cached;
}
