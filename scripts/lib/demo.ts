/** The seeded demo account: printed by `npm run dev`, written in the README, used by the e2e tests. */
export const DEMO = {
  uid: 'demo-owner',
  email: 'demo@signalbridge.test',
  password: 'demo-password',
  fullName: 'Dana Demo',
  orgId: 'demo',
  orgName: 'Demo Company',
} as const;
