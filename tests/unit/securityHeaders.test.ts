/** @jest-environment node */
import { createHash } from 'node:crypto';
import { PageScripts } from '@/lib/server/http/pageScripts';
import { contentSecurityPolicy, HSTS_VALUE, securityHeaders, type SecurityHeaderConfig } from '@/lib/server/http/securityHeaders';

const PRODUCTION: SecurityHeaderConfig = {
  nodeEnv: 'production',
  appUrl: 'https://app.signalbridge.example',
  firebaseAuthDomain: 'signalbridge-prod.firebaseapp.com',
  authEmulatorUrl: null,
  firestoreEmulatorHost: null,
  billingApiUrl: '/api',
  intercom: false,
  scriptHashes: ["'sha256-abc='"],
};

/** directive → its sources */
function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy.split('; ').map((directive) => {
      const [name, ...sources] = directive.split(' ');
      return [name!, sources];
    }),
  );
}

/** Every host the policy names, whatever the directive. */
const hostsOf = (policy: string) =>
  [...new Set(Object.values(directives(policy)).flat())].filter((source) => /^(https?|wss):\/\/./.test(source)).sort();

describe('Strict-Transport-Security', () => {
  test('is sent by a production server whose APP_URL is https', () => {
    expect(securityHeaders(PRODUCTION)['Strict-Transport-Security']).toBe('max-age=63072000; includeSubDomains');
    expect(HSTS_VALUE).toBe('max-age=63072000; includeSubDomains');
  });

  test.each([
    ['the local production build on http://127.0.0.1', { appUrl: 'http://127.0.0.1:3100' }],
    ['a server without APP_URL', { appUrl: undefined }],
    ['a malformed APP_URL', { appUrl: 'not a url' }],
    ['next dev, even with an https APP_URL', { nodeEnv: 'development' }],
    ['the tests (NODE_ENV=test)', { nodeEnv: 'test' }],
  ])('is not sent by %s', (_label, change) => {
    const headers = securityHeaders({ ...PRODUCTION, ...change });
    expect(headers['Strict-Transport-Security']).toBeUndefined();
    expect(headers['Content-Security-Policy']).toContain("default-src 'self'");
  });
});

describe('Content-Security-Policy', () => {
  test('production: only our own scripts, the bootstrap hashes and Firebase’s popup loader; no eval, no inline', () => {
    const csp = directives(contentSecurityPolicy(PRODUCTION));
    expect(csp['script-src']).toEqual(["'self'", "'sha256-abc='", 'https://apis.google.com']);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['style-src-attr']).toEqual(["'unsafe-inline'"]);
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(csp['object-src']).toEqual(["'none'"]);
    expect(csp['base-uri']).toEqual(["'self'"]);
    expect(csp['form-action']).toEqual(["'self'"]);
    expect(csp['upgrade-insecure-requests']).toEqual([]);
    expect(contentSecurityPolicy(PRODUCTION)).not.toContain("'unsafe-eval'");
  });

  test('production without Intercom names Firebase’s origins and nothing else', () => {
    const csp = directives(contentSecurityPolicy(PRODUCTION));
    expect(csp['connect-src']).toEqual([
      "'self'",
      'https://identitytoolkit.googleapis.com',
      'https://securetoken.googleapis.com',
      'https://firestore.googleapis.com',
    ]);
    expect(csp['frame-src']).toEqual(['https://signalbridge-prod.firebaseapp.com']);
    // Logos are any https image URL (or data:); nothing else is fetched from elsewhere.
    expect(csp['img-src']).toEqual(["'self'", 'data:', 'blob:', 'https:']);
    expect(hostsOf(contentSecurityPolicy(PRODUCTION))).toEqual([
      'https://apis.google.com',
      'https://firestore.googleapis.com',
      'https://identitytoolkit.googleapis.com',
      'https://securetoken.googleapis.com',
      'https://signalbridge-prod.firebaseapp.com',
    ]);
  });

  test('Intercom’s origins are allowed only when the chat is configured, and are all Intercom’s or its video embeds', () => {
    const policy = contentSecurityPolicy({ ...PRODUCTION, intercom: true });
    const csp = directives(policy);
    expect(csp['script-src']).toEqual(
      expect.arrayContaining(['https://widget.intercom.io', 'https://js.intercomcdn.com', 'https://app.intercom.io']),
    );
    expect(csp['connect-src']).toEqual(
      expect.arrayContaining(['https://api-iam.intercom.io', 'wss://nexus-websocket-a.intercom.io', 'https://uploads.intercomcdn.com']),
    );
    expect(csp['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp['script-src']).not.toContain("'unsafe-inline'");
    expect(csp['script-src']).not.toContain("'unsafe-eval'");
    const others = hostsOf(policy).filter((host) => !hostsOf(contentSecurityPolicy(PRODUCTION)).includes(host));
    const intercom =
      /^(https|wss):\/\/([\w-]+\.|\*\.)*(intercom\.io|intercomcdn\.com|intercomcdn\.eu|intercomusercontent\.com|intercomassets\.com|intercom-messenger\.com|intercom-attachments-\d\.com|intercom-sheets\.com|intercom-reporting\.com|intercom\.help)$/;
    const videos = ['https://www.youtube.com', 'https://player.vimeo.com', 'https://fast.wistia.net'];
    expect(others.filter((host) => !intercom.test(host) && !videos.includes(host))).toEqual([]);
  });

  test('the emulators and an external billing API are allowed where configured', () => {
    const csp = directives(
      contentSecurityPolicy({
        ...PRODUCTION,
        appUrl: 'http://127.0.0.1:3100',
        authEmulatorUrl: 'http://127.0.0.1:9099',
        firestoreEmulatorHost: '127.0.0.1:8080',
        billingApiUrl: 'https://billing.signalbridge.example/api',
      }),
    );
    expect(csp['connect-src']).toEqual(
      expect.arrayContaining(['http://127.0.0.1:9099', 'http://127.0.0.1:8080', 'https://billing.signalbridge.example']),
    );
    // The Google popup frames the Auth emulator's helper page instead of the authDomain's.
    expect(csp['frame-src']).toContain('http://127.0.0.1:9099');
    // Served over http: no upgrade, and http logos load.
    expect(csp['upgrade-insecure-requests']).toBeUndefined();
    expect(csp['img-src']).toContain('http:');
  });

  test('next dev alone may run inline scripts (its HMR version), evaluate code (React Refresh) and inject styles', () => {
    const csp = directives(contentSecurityPolicy({ ...PRODUCTION, nodeEnv: 'development', scriptHashes: [] }));
    expect(csp['script-src']).toEqual(["'self'", "'unsafe-inline'", "'unsafe-eval'", 'https://apis.google.com']);
    expect(csp['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
  });
});

describe('the inline bootstrap script’s hash', () => {
  const manifest = {
    chunkLoadingGlobal: 'TURBOPACK',
    pagesChunkGroupBootstrapParams: {
      '/_app': { otherChunks: ['static/chunks/app.js'], runtimeModuleIds: [1] },
      '/login': { otherChunks: ['static/chunks/login.js'], runtimeModuleIds: [2] },
      '/[orgId]/connection': { otherChunks: ['static/chunks/connection.js'], runtimeModuleIds: [3] },
      '/[orgId]/[startRoute]': { otherChunks: ['static/chunks/start.js'], runtimeModuleIds: [4] },
      '/404': { otherChunks: ['static/chunks/404.js'], runtimeModuleIds: [5] },
      '/_error': { otherChunks: ['static/chunks/error.js'], runtimeModuleIds: [6] },
    },
  };
  const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const push = (params: object) => `(globalThis["TURBOPACK"] || (globalThis["TURBOPACK"] = [])).push(${JSON.stringify(params)});`;

  test('is the hash of the text next/document writes for the page', () => {
    const scripts = new PageScripts(manifest);
    const login = [push(manifest.pagesChunkGroupBootstrapParams['/_app']), push(manifest.pagesChunkGroupBootstrapParams['/login'])];
    expect(scripts.hashOf('/login')).toBe(sha(login.join('\n')));
  });

  test('a path gets the hashes of the pages whose routes match it and of the error pages', () => {
    const scripts = new PageScripts(manifest);
    expect(scripts.hashesFor('/login').sort()).toEqual(['/login', '/404', '/_error'].map((page) => scripts.hashOf(page)).sort());
    expect(scripts.hashesFor('/acme/connection').sort()).toEqual(
      ['/[orgId]/connection', '/[orgId]/[startRoute]', '/404', '/_error'].map((page) => scripts.hashOf(page)).sort(),
    );
    expect(scripts.hashesFor('/acme/connection/c-1')).toHaveLength(2);
  });

  test('a build without the bootstrap (next dev, webpack) has no hashes', () => {
    expect(new PageScripts({}).hashesFor('/login')).toEqual([]);
  });
});
