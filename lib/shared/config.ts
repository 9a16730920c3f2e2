/**
 * Public (browser-visible) configuration. Each variable is read by its literal name so that
 * Next inlines it at build time; nothing secret belongs here.
 */
export const publicConfig = {
  firebase: {
    apiKey: process.env.NEXT_PUBLIC_FIREBASE_API_KEY || 'demo-api-key',
    authDomain: process.env.NEXT_PUBLIC_FIREBASE_AUTH_DOMAIN || 'demo-signalbridge.firebaseapp.com',
    projectId: process.env.NEXT_PUBLIC_FIREBASE_PROJECT_ID || 'demo-signalbridge',
    appId: process.env.NEXT_PUBLIC_FIREBASE_APP_ID || undefined,
  },
  useEmulators: process.env.NEXT_PUBLIC_USE_EMULATORS === '1',
  authEmulatorUrl: process.env.NEXT_PUBLIC_AUTH_EMULATOR_URL || 'http://127.0.0.1:9099',
  firestoreEmulatorHost: process.env.NEXT_PUBLIC_FIRESTORE_EMULATOR_HOST || '127.0.0.1:8080',
  /** The seeded demo organization: its pages wear the Demo marker. Empty in production. */
  demoOrgId: process.env.NEXT_PUBLIC_DEMO_ORG_ID || '',
  /** The billing API's base (docs/PRODUCT.md §5 `{billing api}`): this app's own API unless configured. */
  billingApiUrl: (process.env.NEXT_PUBLIC_BILLING_API_URL || '/api').replace(/\/$/, ''),
  /** Intercom workspace id; without it the chat widget is never loaded. */
  intercomAppId: process.env.NEXT_PUBLIC_INTERCOM_APP_ID || '',
  /** The local platform sandbox's index (npm run dev); empty in production. */
  platformSandboxUrl: process.env.NEXT_PUBLIC_PLATFORM_SANDBOX_URL || '',
} as const;

export function isDemoOrganization(orgId: string | undefined): boolean {
  return Boolean(publicConfig.demoOrgId) && orgId === publicConfig.demoOrgId;
}
