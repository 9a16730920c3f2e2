/**
 * The Content-Security-Policy and Strict-Transport-Security of every page (docs/architecture/overview.md, "Security
 * headers"). Pure: `middleware.ts` builds the configuration per request (APP_URL is known only at run time) and
 * the page's script hashes (`pageScripts.ts`); tests pass their own.
 */

/** What the policy is built from. */
export interface SecurityHeaderConfig {
  /** NODE_ENV: 'development' under `next dev`, 'production' in a build. */
  nodeEnv: string | undefined;
  /** APP_URL: HSTS is sent only where the app is served over https. */
  appUrl: string | undefined;
  /** NEXT_PUBLIC_FIREBASE_AUTH_DOMAIN: Firebase Auth frames `https://<authDomain>/__/auth/iframe` for the Google popup. */
  firebaseAuthDomain: string;
  /** The Auth emulator's URL and the Firestore emulator's host:port, when the browser uses the emulators. */
  authEmulatorUrl: string | null;
  firestoreEmulatorHost: string | null;
  /** NEXT_PUBLIC_BILLING_API_URL: its origin when it is not this app's own `/api`. */
  billingApiUrl: string;
  /** Whether the Intercom chat is configured (NEXT_PUBLIC_INTERCOM_APP_ID): its origins are allowed only then. */
  intercom: boolean;
  /** `'sha256-…'` sources of the inline scripts the page may run (Turbopack's chunk bootstrap). */
  scriptHashes: readonly string[];
}

/** Firebase's browser SDK: Auth's REST APIs and Firestore (its listeners are long-lived fetches). */
const FIREBASE_CONNECT = [
  'https://identitytoolkit.googleapis.com',
  'https://securetoken.googleapis.com',
  'https://firestore.googleapis.com',
];
/** Firebase Auth's popup flow loads Google's gapi loader, which talks to the auth iframe. */
const FIREBASE_SCRIPTS = ['https://apis.google.com'];

/**
 * Intercom's documented allow-list ("Using Intercom with Content Security Policy", help article 3894), every
 * hosting region, since the workspace's region is Intercom's setting, not ours.
 */
const INTERCOM = {
  script: ['https://app.intercom.io', 'https://widget.intercom.io', 'https://js.intercomcdn.com'],
  connect: [
    'https://via.intercom.io',
    'https://api.intercom.io',
    'https://api.au.intercom.io',
    'https://api.eu.intercom.io',
    'https://api-iam.intercom.io',
    'https://api-iam.eu.intercom.io',
    'https://api-iam.au.intercom.io',
    'https://api-ping.intercom.io',
    'https://*.intercom-messenger.com',
    'wss://*.intercom-messenger.com',
    'https://nexus-websocket-a.intercom.io',
    'wss://nexus-websocket-a.intercom.io',
    'https://nexus-websocket-b.intercom.io',
    'wss://nexus-websocket-b.intercom.io',
    'https://nexus-europe-websocket.intercom.io',
    'wss://nexus-europe-websocket.intercom.io',
    'https://nexus-australia-websocket.intercom.io',
    'wss://nexus-australia-websocket.intercom.io',
    'https://uploads.intercomcdn.com',
    'https://uploads.intercomcdn.eu',
    'https://uploads.au.intercomcdn.com',
    'https://uploads.eu.intercomcdn.com',
    'https://uploads.intercomusercontent.com',
  ],
  frame: [
    'https://intercom-sheets.com',
    'https://www.intercom-reporting.com',
    'https://www.youtube.com',
    'https://player.vimeo.com',
    'https://fast.wistia.net',
  ],
  font: ['https://js.intercomcdn.com', 'https://fonts.intercomcdn.com'],
  media: ['https://js.intercomcdn.com'],
  img: [
    'https://js.intercomcdn.com',
    'https://static.intercomassets.com',
    'https://downloads.intercomcdn.com',
    'https://uploads.intercomusercontent.com',
    'https://gifs.intercomcdn.com',
    'https://video-messages.intercomcdn.com',
    'https://messenger-apps.intercom.io',
    'https://*.intercom-attachments-5.com',
    'https://*.intercom-attachments-6.com',
    'https://*.intercom-attachments-9.com',
  ],
  form: ['https://intercom.help', 'https://api-iam.intercom.io', 'https://api-iam.eu.intercom.io', 'https://api-iam.au.intercom.io'],
};

/** HSTS for two years, subdomains included (the lifetime hstspreload.org asks for). */
export const HSTS_VALUE = 'max-age=63072000; includeSubDomains';

function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** A production server reached over https: the only place HSTS may be sent (never on http://127.0.0.1, which browsers would pin). */
export function servedOverHttps(config: Pick<SecurityHeaderConfig, 'nodeEnv' | 'appUrl'>): boolean {
  return config.nodeEnv === 'production' && originOf(config.appUrl)?.startsWith('https://') === true;
}

export function contentSecurityPolicy(config: SecurityHeaderConfig): string {
  const development = config.nodeEnv === 'development';
  const https = servedOverHttps(config);
  const intercom = (list: string[]) => (config.intercom ? list : []);
  const authEmulator = originOf(config.authEmulatorUrl);
  const firestoreEmulator = config.firestoreEmulatorHost ? originOf(`http://${config.firestoreEmulatorHost}`) : null;
  const billingApi = originOf(config.billingApiUrl);

  const directives: Array<[string, Array<string | null>]> = [
    ['default-src', ["'self'"]],
    // A build's one inline script is Turbopack's bootstrap, allowed by its hash. `next dev` writes its own
    // (the HMR version) and React Refresh evaluates code: 'unsafe-inline' and 'unsafe-eval' there, and nowhere else.
    [
      'script-src',
      [
        "'self'",
        ...config.scriptHashes,
        ...(development ? ["'unsafe-inline'", "'unsafe-eval'"] : []),
        ...FIREBASE_SCRIPTS,
        ...intercom(INTERCOM.script),
      ],
    ],
    // Our CSS is files; `next dev` injects its styles inline and Intercom's Messenger adds <style> elements.
    ['style-src', ["'self'", ...(development || config.intercom ? ["'unsafe-inline'"] : [])]],
    // style="" attributes: React's style props in server-rendered HTML (they cannot run script).
    ['style-src-attr', ["'unsafe-inline'"]],
    // Organization logos are data: URLs or any http(s) image URL the owner typed (docs/PRODUCT.md §4).
    ['img-src', ["'self'", 'data:', 'blob:', 'https:', ...(https ? [] : ['http:']), ...intercom(INTERCOM.img)]],
    ['font-src', ["'self'", ...intercom(INTERCOM.font)]],
    ['media-src', ["'self'", ...intercom(INTERCOM.media)]],
    ['connect-src', ["'self'", ...FIREBASE_CONNECT, authEmulator, firestoreEmulator, billingApi, ...intercom(INTERCOM.connect)]],
    ['frame-src', [`https://${config.firebaseAuthDomain}`, authEmulator, ...intercom(INTERCOM.frame)]],
    ['frame-ancestors', ["'none'"]],
    ['base-uri', ["'self'"]],
    ['form-action', ["'self'", ...intercom(INTERCOM.form)]],
    ['object-src', ["'none'"]],
  ];
  const policy = directives.map(([name, sources]) =>
    [name, ...new Set(sources.filter((source): source is string => Boolean(source)))].join(' '),
  );
  if (https) policy.push('upgrade-insecure-requests');
  return policy.join('; ');
}

/** The headers middleware.ts adds to every page response. */
export function securityHeaders(config: SecurityHeaderConfig): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(config),
    ...(servedOverHttps(config) ? { 'Strict-Transport-Security': HSTS_VALUE } : {}),
  };
}
