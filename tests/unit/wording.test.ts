import { planNameOf } from '@/lib/shared/billing/entitlements';
import { plural } from '@/lib/shared/plural';

test('a count reads in the right number', () => {
  expect(plural(1, 'event')).toBe('1 event');
  expect(plural(0, 'event')).toBe('0 events');
  expect(plural(1204, 'row')).toBe('1,204 rows');
  expect(plural(1, 'person', 'people')).toBe('1 person');
  expect(plural(3, 'person', 'people')).toBe('3 people');
});

test('plan names read as the plans table writes them', () => {
  expect(planNameOf('growth')).toBe('Growth');
  expect(planNameOf('starter')).toBe('Starter');
  expect(planNameOf('enterprise-legacy')).toBe('enterprise-legacy');
  expect(planNameOf(null)).toBe('—');
});
