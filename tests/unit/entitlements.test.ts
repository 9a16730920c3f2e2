import {
  adAccountLimitMessage,
  adAccountUsageLabel,
  countAdAccounts,
  entitlementsOf,
  includesAdAccounts,
  planForAdAccounts,
} from '@/lib/shared/billing/entitlements';
import { PLANS } from '@/lib/shared/billing/plans';

test('each plan says what it includes', () => {
  expect(entitlementsOf('starter')).toMatchObject({ adAccounts: 2, syncFrequency: 'daily', conversions: false, historicalBackfill: false });
  expect(entitlementsOf('growth')).toMatchObject({ adAccounts: 10, syncFrequency: 'hourly', conversions: true, historicalBackfill: false });
  expect(entitlementsOf('scale')).toMatchObject({
    adAccounts: 'unlimited',
    syncFrequency: '15-minute',
    conversions: true,
    historicalBackfill: true,
  });
});

test('an organization without a known plan gets Starter’s entitlements', () => {
  for (const plan of [null, undefined, '', 'enterprise-legacy'])
    expect(entitlementsOf(plan)).toMatchObject({ id: 'starter', adAccounts: 2 });
});

test('the plan cards’ feature lines come from the table', () => {
  expect(PLANS.map((plan) => [plan.id, plan.name, plan.features])).toEqual([
    ['starter', 'Starter', ['2 ad accounts', 'Daily sync', 'Email support']],
    ['growth', 'Growth', ['10 ad accounts', 'Hourly sync', 'Conversions API uploads', 'Chat support']],
    ['scale', 'Scale', ['Unlimited ad accounts', '15-minute sync', 'Conversions API uploads', 'Historical backfills', 'Priority support']],
  ]);
});

test('the limit holds up to the number and no further; unlimited is unlimited', () => {
  expect(includesAdAccounts(entitlementsOf('starter'), 2)).toBe(true);
  expect(includesAdAccounts(entitlementsOf('starter'), 3)).toBe(false);
  expect(includesAdAccounts(entitlementsOf('scale'), 10_000)).toBe(true);
  expect(planForAdAccounts(1).id).toBe('starter');
  expect(planForAdAccounts(6).id).toBe('growth');
  expect(planForAdAccounts(11).id).toBe('scale');
});

test('the refusal names the plan that includes the selection', () => {
  expect(adAccountLimitMessage('starter', 6)).toBe(
    'The Starter plan includes 2 ad accounts; you selected 6. Upgrade to Growth for up to 10.',
  );
  expect(adAccountLimitMessage('starter', 12)).toBe(
    'The Starter plan includes 2 ad accounts; you selected 12. Upgrade to Scale for unlimited ad accounts.',
  );
  expect(adAccountLimitMessage('growth', 11)).toBe(
    'The Growth plan includes 10 ad accounts; you selected 11. Upgrade to Scale for unlimited ad accounts.',
  );
  expect(adAccountLimitMessage(null, 3)).toBe(
    'Without a plan, an organization includes 2 ad accounts; you selected 3. Choose Growth for up to 10.',
  );
});

test('the label beside the picker', () => {
  expect(adAccountUsageLabel('starter', 2)).toBe('2 of 2 ad accounts on Starter');
  expect(adAccountUsageLabel('growth', 1)).toBe('1 of 10 ad accounts on Growth');
  expect(adAccountUsageLabel('scale', 1)).toBe('1 ad account · unlimited on Scale');
  expect(adAccountUsageLabel(null, 0)).toBe('0 of 2 ad accounts without a plan');
});

test('an account picked in two sources counts once; the same id on two platforms twice', () => {
  const google = { platform: 'google_ads', accounts: [{ id: '1' }, { id: '2' }] };
  expect(countAdAccounts([google, { platform: 'google_ads', accounts: [{ id: '2' }] }])).toBe(2);
  expect(countAdAccounts([google, { platform: 'meta_ads', accounts: [{ id: '1' }] }])).toBe(3);
  expect(countAdAccounts([])).toBe(0);
});
