import { readdirSync } from 'node:fs';
import path from 'node:path';
import { START_ROUTES } from '@/lib/shared/integrations/platforms';
import {
  clearsFlowKeys,
  isOrganizationPath,
  isPublicPage,
  orgIdOfPath,
  organizationsDestination,
  pendingInvitationPath,
  safeCallback,
  sessionRedirect,
} from '@/lib/shared/navigation';

describe('signed out', () => {
  const signedOut = (path: string, fullPath = path) => sessionRedirect({ path, fullPath, signedIn: false, callback: null });

  test('a protected page sends to /login with the wanted path as callback', () => {
    expect(signedOut('/acme/source', '/acme/source?tab=2')).toBe('/login?callback=%2Facme%2Fsource%3Ftab%3D2');
    expect(signedOut('/organizations')).toBe('/login?callback=%2Forganizations');
  });

  test('the sign-in pages and invitation links stay open', () => {
    for (const path of ['/login', '/signUp', '/forgotPassword', '/acme/acceptInvitation/inv1']) {
      expect(signedOut(path)).toBeNull();
    }
  });

  test('/ goes to /login', () => expect(signedOut('/')).toBe('/login'));

  test('a path that is no page of ours is left to be a 404', () => {
    expect(signedOut('/no/such/page')).toBeNull();
    expect(signedOut('/acme/no-such-section')).toBeNull();
  });
});

describe('signed in', () => {
  const signedIn = (path: string, callback: string | null = null) => sessionRedirect({ path, fullPath: path, signedIn: true, callback });

  test('the sign-in pages go to /organizations, or back to the saved callback', () => {
    expect(signedIn('/login')).toBe('/organizations');
    expect(signedIn('/signUp')).toBe('/organizations');
    expect(signedIn('/forgotPassword', '/acme/source')).toBe('/acme/source');
  });

  test('a pending invitation wins over the callback', () => {
    expect(
      sessionRedirect({
        path: '/login',
        fullPath: '/login',
        signedIn: true,
        callback: '/acme/source',
        pendingInvitation: '/acme/acceptInvitation/inv1',
      }),
    ).toBe('/acme/acceptInvitation/inv1');
  });

  test('other pages stay', () => {
    expect(signedIn('/acme/source')).toBeNull();
    expect(signedIn('/organizations')).toBeNull();
    expect(signedIn('/')).toBe('/organizations');
  });
});

test.each([
  ['/acme/source', '/acme/source'],
  ['/acme/source?x=1', '/acme/source?x=1'],
  ['/acme/app/a1/google/configuration', '/acme/app/a1/google/configuration'],
  // Not a path of this site.
  ['//evil.example', null],
  ['//evil.example/', null],
  ['https://evil.example/acme', null],
  ['http:evil.example', null],
  ['https:/evil.example', null],
  ['javascript:alert(1)', null],
  ['JavaScript:alert(1)//', null],
  ['evil.example', null],
  ['', null],
  // Backslashes: browsers read them as slashes.
  ['/\\evil.example', null],
  ['\\\\evil.example', null],
  ['/\\/evil.example', null],
  ['/acme\\..\\..\\/evil.example', null],
  // Tabs and newlines are dropped by URL parsers, so they hide a second slash.
  ['/\t/evil.example', null],
  ['/\n/evil.example', null],
  ['/\r\n/evil.example', null],
  [' //evil.example', null],
  // Dot segments that normalise into a scheme-relative URL (issue 12).
  ['/.//evil.example/', null],
  ['/%2e//evil.example/', null],
  ['/%2E//evil.example/', null],
  ['/x/..//evil.example/', null],
  ['/x/%2e%2e//evil.example/', null],
  ['/./\\evil.example', null],
  // Encoded slashes and backslashes stay encoded: a harmless path of this site.
  ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ['/%5Cevil.example', '/%5Cevil.example'],
  // Dot segments that stay on the site are normalised.
  ['/x/../acme/source', '/acme/source'],
  // Not remembered: the sign-in pages and invitations.
  ['/login', null],
  ['/./login', null],
  ['/acme/acceptInvitation/i1', null],
  [undefined, null],
  [42, null],
])('callback %j → %j', (value, expected) => {
  expect(safeCallback(value)).toBe(expected);
});

test('whatever safeCallback returns resolves to a path of this site', () => {
  const inputs = ['/.//evil.example/', '/%2e//x', '/a/..//b', '/acme/source?next=//evil', '/%2F/x', '/\t\\x'];
  for (const input of inputs) {
    const path = safeCallback(input);
    if (path !== null) expect(new URL(path, 'https://app.example').origin).toBe('https://app.example');
  }
});

test.each([
  ['acme/inv1', '/acme/acceptInvitation/inv1'],
  ['acme/../x', null],
  ['//evil.example/x', null],
  ['acme', null],
  [undefined, null],
])('pending invitation cookie %j → %j', (value, expected) => {
  expect(pendingInvitationPath(value)).toBe(expected);
});

test('organization destinations: one → it, several → the list, none → onboarding', () => {
  expect(organizationsDestination(['acme'])).toBe('/acme/connection');
  expect(organizationsDestination(['acme', 'globex'])).toBe('/organizations');
  expect(organizationsDestination([])).toBe('/onboarding');
});

test('organization ids come from organization-scoped paths only', () => {
  expect(orgIdOfPath('/acme/connection')).toBe('acme');
  expect(orgIdOfPath('/acme/app/a1/google/configuration')).toBe('acme');
  expect(orgIdOfPath('/organizations')).toBeNull();
  expect(orgIdOfPath('/subscription/success')).toBeNull();
});

test('an organization id that cannot be decoded or is no valid id is no organization id, never an exception', () => {
  expect(orgIdOfPath('/%E0%A4%A/settings')).toBeNull();
  expect(orgIdOfPath('/__x__/settings')).toBeNull();
  expect(orgIdOfPath('/a%2Fb/settings')).toBeNull();
  expect(orgIdOfPath('/acme%20co/settings')).toBe('acme co');
  expect(isOrganizationPath('/%E0%A4%A/settings')).toBe(true);
  expect(isOrganizationPath('/organizations')).toBe(false);
});

test('entering connections, conversions or apps clears the flow keys; their subpages do not', () => {
  expect(clearsFlowKeys('/acme/connection')).toBe(true);
  expect(clearsFlowKeys('/acme/conversion')).toBe(true);
  expect(clearsFlowKeys('/acme/app')).toBe(true);
  expect(clearsFlowKeys('/acme/app/connect')).toBe(false);
  expect(clearsFlowKeys('/acme/source')).toBe(false);
});

test('every page under pages/[orgId] is an organization page: the guard sends a signed-out visitor to /login', () => {
  // The guard's list of sections is written by hand (middleware runs where it cannot read the pages):
  // a page added without its section would open to anybody signed out.
  // The one dynamic page there serves the consents' start routes (GoogleAds, MetaAds, MicrosoftAds).
  const sections = readdirSync(path.join(__dirname, '../../pages/[orgId]'))
    .map((entry) => entry.replace(/\.tsx?$/, ''))
    .flatMap((section) => (section === '[startRoute]' ? [...START_ROUTES] : [section]));
  expect(sections).toEqual(expect.arrayContaining(['GoogleAds', 'MetaAds', 'MicrosoftAds']));
  expect(sections.length).toBeGreaterThan(10);
  for (const section of sections) {
    expect({ section, organizationPage: isOrganizationPath(`/acme/${section}`), public: isPublicPage(`/acme/${section}`) }).toEqual({
      section,
      organizationPage: true,
      public: false,
    });
  }
});

test('a run of a connection opened (/{orgId}/connection/{id}/runs/{runId}) is guarded like the connection pages', () => {
  const path = '/acme/connection/c1/runs/r1';
  expect(isOrganizationPath(path)).toBe(true);
  expect(isPublicPage(path)).toBe(false);
  expect(orgIdOfPath(path)).toBe('acme');
  expect(sessionRedirect({ path, fullPath: path, signedIn: false, callback: null })).toBe(`/login?callback=${encodeURIComponent(path)}`);
  expect(clearsFlowKeys(path)).toBe(false);
});
