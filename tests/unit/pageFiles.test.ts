import { existsSync } from 'node:fs';
import path from 'node:path';

// The design card maps pages one-to-one to the spec's routes: each route below (the spec's list, verbatim
// but for {org_id} -> [orgId] and {id} -> [id]) has a page file of its own, not a dynamic segment that
// happens to serve it. A platform beyond the spec may be served by a dynamic page; these may not.
const ORGANIZATION_ROUTES = [
  'acceptInvitation/[id]',
  'app',
  'app/[id]',
  'app/connect',
  'app/[id]/bigquery/configuration',
  'app/[id]/custom-submission',
  'app/[id]/google/configuration',
  'app/[id]/meta/configuration',
  'app/[id]/microsoft/configuration',
  'app/[id]/mixpanel/configuration',
  'connection',
  'connection/[id]/configuration',
  'connection/[id]/test1',
  'conversion',
  'conversion/[id]/configuration',
  'createConnection',
  'createConversion',
  'destination',
  'destination/[id]/configuration',
  'source',
  'source/[id]/google/configuration',
  'source/[id]/meta/configuration',
  'source/[id]/microsoft/configuration',
  'GoogleAds',
  'MicrosoftAds',
  'MetaAds',
  'payment',
  'payment/[id]/configuration',
  'settings',
  'subscription',
  'subscription/success',
  'subscription/failure',
].map((route) => `[orgId]/${route}`);

const GLOBAL_ROUTES = [
  'index',
  'login',
  'signUp',
  'forgotPassword',
  'onboarding',
  'organizations',
  'payments',
  'addSource',
  'addDestination',
  'addConversionSource',
  'addConversionDestination',
  'bigquery',
  'googleReauth',
  'metaReauth',
  'microsoftReauth',
  'linkedinReauth',
  'SourceSettings',
  'subscription',
  'subscription/success',
  'subscription/failure',
];

const pages = path.join(__dirname, '../../pages');
const pageFileOf = (route: string) => [`${route}.tsx`, `${route}/index.tsx`].find((file) => existsSync(path.join(pages, file))) ?? null;

test.each([...ORGANIZATION_ROUTES, ...GLOBAL_ROUTES])('the spec route %s has a page file of its own', (route) => {
  expect({ route, file: pageFileOf(route) }).toEqual({ route, file: expect.stringMatching(/\.tsx$/) });
});
