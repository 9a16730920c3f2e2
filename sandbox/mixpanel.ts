/**
 * The sandbox's Mixpanel: a service account (Basic auth) per data residency (US, EU, IN), answering
 * GET /api/app/me with the project it may send to.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { json } from '@/sandbox/server';
import type { SandboxPlatform } from '@/sandbox/store';

export const SANDBOX_MIXPANEL = {
  username: 'signalbridge.sandbox.mp-service-account',
  secret: 'sandbox-mixpanel-secret',
  projects: { US: { id: '3001', name: 'Acme Web (US)' }, EU: { id: '3002', name: 'Acme Web (EU)' }, IN: { id: '3003', name: 'Acme Web (IN)' } },
} as const;

const MIXPANEL_PATH = /^\/mixpanel\/(us|eu|in)(\/.*)$/;

function mixpanel(req: IncomingMessage, res: ServerResponse, residency: 'US' | 'EU' | 'IN', path: string) {
  if (req.method !== 'GET' || path !== '/api/app/me') return json(res, 404, { status: 'error', error: 'Not found' });
  const header = req.headers.authorization ?? '';
  const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString() : '';
  if (decoded !== `${SANDBOX_MIXPANEL.username}:${SANDBOX_MIXPANEL.secret}`) {
    return json(res, 401, { status: 'error', error: 'Invalid credentials' }, { 'WWW-Authenticate': 'Basic realm="Mixpanel"' });
  }
  const project = SANDBOX_MIXPANEL.projects[residency];
  return json(res, 200, {
    status: 'ok',
    results: {
      id: 424242,
      name: 'SignalBridge sandbox',
      email: SANDBOX_MIXPANEL.username,
      is_service_account: true,
      projects: { [project.id]: { name: project.name, organization_id: 777, domain: residency === 'US' ? 'mixpanel.com' : `${residency.toLowerCase()}.mixpanel.com`, role: { name: 'Admin' } } },
    },
  });
}

/** Mixpanel's part of the sandbox (it keeps no logins: a service account is a key). */
export function createMixpanel(): SandboxPlatform {
  return {
    owns: (path) => MIXPANEL_PATH.test(path),
    handle: (req, res, url) => {
      const [, residency, path] = MIXPANEL_PATH.exec(url.pathname)!;
      return mixpanel(req, res, residency!.toUpperCase() as 'US' | 'EU' | 'IN', path!);
    },
  };
}

/** The environment that points the app's Mixpanel client at the sandbox at `url`. */
export function mixpanelEnv(url: string): Record<string, string> {
  return {
    MIXPANEL_API_URL_US: `${url}/mixpanel/us`,
    MIXPANEL_API_URL_EU: `${url}/mixpanel/eu`,
    MIXPANEL_API_URL_IN: `${url}/mixpanel/in`,
  };
}
