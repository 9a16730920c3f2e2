/** @jest-environment node */
import { DAYS_PER_WRITE, planRunWrite, TRANSFORMS_PER_WRITE, transformsOf } from '@/lib/server/repos/runWritePlan';

const day = (index: number) => new Date(Date.UTC(2025, 0, 1) + index * 86_400_000).toISOString().slice(0, 10);
/** A scheduled run's settles: one job per account, each writing yesterday. */
const scheduled = (count: number) => Array.from({ length: count }, () => ({ days: [day(0)] }));
/** A backfill's settles: a month each. */
const months = (count: number) =>
  Array.from({ length: count }, (_, month) => ({ days: Array.from({ length: 30 }, (_, d) => day(month * 30 + d)) }));

describe('a write of the run document', () => {
  test('takes a few settles and attempts whole', () => {
    expect(planRunWrite(scheduled(5), 7)).toEqual({ settles: 5, attempts: 7 });
  });

  test('after an outage (300 settles of 300 accounts, 250 jobs begun) stays within Firestore’s 500 field transforms, and the rest waits', () => {
    const plan = planRunWrite(scheduled(300), 250);
    expect(plan.settles).toBeGreaterThan(0);
    expect(plan.attempts).toBeGreaterThan(0);
    expect(transformsOf(plan)).toBeLessThanOrEqual(TRANSFORMS_PER_WRITE);
    expect(plan.settles).toBeLessThan(300);
    expect(plan.attempts).toBeLessThan(250);
  });

  test('a backfill’s months stop at the chart days a transaction can write, one settle at least', () => {
    const plan = planRunWrite(months(40), 0);
    expect(plan.settles * 30).toBeLessThanOrEqual(DAYS_PER_WRITE);
    expect(plan.settles).toBe(Math.floor(DAYS_PER_WRITE / 30));
    expect(planRunWrite([{ days: Array.from({ length: 600 }, (_, d) => day(d)) }], 0).settles).toBe(1);
  });
});
