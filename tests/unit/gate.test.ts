import { hasActiveSubscription, PAST_DUE_GRACE_DAYS, requiresSubscription } from '@/lib/shared/billing/gate';

const now = new Date('2026-11-22T12:00:00Z');
const subscription = (status: string, pastDueSince: string | null = null) =>
  ({ status, plan: 'growth', current_period_end: null, past_due_since: pastDueSince }) as never;

test.each([
  ['active', true],
  ['trialing', true],
  ['canceled', false],
  ['incomplete', false],
  ['unpaid', false],
])('a %s subscription opens the organization: %p', (status, open) => {
  expect(hasActiveSubscription(subscription(status), now)).toBe(open);
});

test(`past due stays open for ${PAST_DUE_GRACE_DAYS} days, then closes`, () => {
  expect(hasActiveSubscription(subscription('past_due', '2026-11-16T12:00:01Z'), now)).toBe(true);
  expect(hasActiveSubscription(subscription('past_due', '2026-11-15T12:00:00Z'), now)).toBe(false);
});

test('no subscription closes it', () => expect(hasActiveSubscription(null, now)).toBe(false));

test('subscription pages and invitation links stay open without a subscription', () => {
  expect(requiresSubscription('/acme/connection')).toBe(true);
  expect(requiresSubscription('/acme/settings')).toBe(true);
  expect(requiresSubscription('/acme/subscription')).toBe(false);
  expect(requiresSubscription('/acme/subscription/success')).toBe(false);
  expect(requiresSubscription('/acme/acceptInvitation/i1')).toBe(false);
});
