/** The seeded demo account: printed by `npm run dev`, written in the README, used by the e2e tests. */
export const DEMO = {
  uid: 'demo-owner',
  email: 'demo@signalbridge.test',
  password: 'demo-password',
  fullName: 'Dana Demo',
  orgId: 'demo',
  orgName: 'Demo Company',
} as const;

/** Where the demo's conversions send: its Meta login's pixel (the sandbox's ad account 101). */
export const DEMO_META_PIXEL = {
  destinationId: 'demo-meta',
  platform: 'meta_ads',
  accountId: '101',
  targetId: '555000111',
  targetName: 'Acme Shoes Pixel',
} as const;
