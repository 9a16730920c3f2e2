import { featuresOf, PLAN_ENTITLEMENTS } from '@/lib/shared/billing/entitlements';
import { planLines, planQuestions } from '@/lib/shared/billing/planGuide';

test('a plan card explains the feature lines of the table, verbatim, and names what the plan leaves out', () => {
  for (const plan of PLAN_ENTITLEMENTS) {
    expect(
      planLines(plan)
        .filter((line) => line.included)
        .map((line) => line.text),
    ).toEqual(featuresOf(plan));
  }
  const starter = planLines(PLAN_ENTITLEMENTS[0]!);
  expect(starter.filter((line) => !line.included).map((line) => `${line.text}: ${line.note}`)).toEqual([
    'Conversions API uploads: not included: ad data only',
    'Historical backfills: not included',
  ]);
});

test('"which plan do I need?" is answered with the plans the table gives each feature', () => {
  expect(planQuestions().map(({ answer }) => answer)).toEqual([
    'Growth or Scale (Conversions API uploads). Starter copies ad data only.',
    'Up to 2: Starter; up to 10: Growth; more: Scale.',
    'Once a day: Starter; every hour: Growth; every 15 minutes: Scale.',
    'Scale (Historical backfills). On Starter and Growth, a connection copies its recent days (its lookback) from its first run on.',
  ]);
});
