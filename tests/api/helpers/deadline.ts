// A deadline, not a sleep: on a busy 2-core machine (CI beside another stack) a set-up that creates users,
// organizations and fake servers can take longer than Jest's 5 s default. (A project's `testTimeout` is not
// read by jest-circus, only the global one: hence here, for the API tests alone.)
jest.setTimeout(30_000);

// A digest of alerts (lib/server/alerts/notify.ts) and a conversion's next alert evaluation
// (lib/server/alerts/delivery.ts) wait on timers: one left behind would fire after this file's tests, where
// Jest counts its log as a failure of the run.
afterAll(async () => {
  const [{ stopDigestTimers }, { stopDeliveryAlertTimers }] = await Promise.all([
    import('@/lib/server/alerts/notify'),
    import('@/lib/server/alerts/delivery'),
  ]);
  stopDigestTimers();
  stopDeliveryAlertTimers();
});
