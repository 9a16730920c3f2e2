import { holdsLiveSubscription } from '@/lib/shared/billing/gate';

test('a subscription Stripe still bills blocks a second checkout, past its grace period too', () => {
  for (const status of ['active', 'trialing', 'past_due', 'unpaid', 'paused']) expect(holdsLiveSubscription({ status })).toBe(true);
});

test('none, or one that ended, leaves the way to checkout open', () => {
  expect(holdsLiveSubscription(null)).toBe(false);
  expect(holdsLiveSubscription(undefined)).toBe(false);
  for (const status of ['canceled', 'incomplete', 'incomplete_expired']) expect(holdsLiveSubscription({ status })).toBe(false);
});
