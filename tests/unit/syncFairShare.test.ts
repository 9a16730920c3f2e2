import { accountOfJobKey, fairShare, type FairJob } from '@/lib/server/sync/fairShare';

/** Jobs that finish when told, recording the order they started in. */
function harness(concurrency: number) {
  const share = fairShare(concurrency);
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const cancelled: string[] = [];
  const push = (name: string, org: string, lane: string, limit = 2) => {
    const job: FairJob = {
      org,
      lane,
      limit,
      run: () =>
        new Promise<void>((resolve) => {
          started.push(name);
          finishers.set(name, resolve);
        }),
      cancel: () => cancelled.push(name),
    };
    share.push(job);
  };
  const finish = async (name: string) => {
    finishers.get(name)!();
    // The slot is handed on once the job's promise settles.
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { share, started, cancelled, push, finish };
}

test('organizations take turns: B queued behind A’s long backfill starts at the next free slot', async () => {
  const { started, push, finish } = harness(1);
  for (let chunk = 1; chunk <= 5; chunk++) push(`A${chunk}`, 'A', `google_ads:${chunk % 3}`, 5);
  push('B1', 'B', 'google_ads:b', 5);
  push('B2', 'B', 'google_ads:b', 5);
  expect(started).toEqual(['A1']);
  for (const name of ['A1', 'B1', 'A2', 'B2', 'A3', 'A4']) await finish(name);
  expect(started).toEqual(['A1', 'B1', 'A2', 'B2', 'A3', 'A4', 'A5']);
});

test('an ad account has at most its limit of jobs at once; the slots go to other accounts meanwhile', async () => {
  const { share, started, push, finish } = harness(4);
  for (let chunk = 1; chunk <= 4; chunk++) push(`x${chunk}`, 'A', 'meta_ads:x', 2);
  push('y1', 'A', 'meta_ads:y', 2);
  expect(started).toEqual(['x1', 'x2', 'y1']);
  expect(share.running).toBe(3);
  expect(share.waiting).toBe(2);
  await finish('x1');
  expect(started).toEqual(['x1', 'x2', 'y1', 'x3']);
});

test("an organization's accounts advance together: a freed slot goes to its account with the fewest jobs running", async () => {
  const { started, push, finish } = harness(4);
  for (const account of ['a', 'b', 'c'])
    for (let chunk = 1; chunk <= 4; chunk++) push(`${account}${chunk}`, 'A', `google_ads:${account}`, 2);
  expect(started).toEqual(['a1', 'a2', 'b1', 'b2']);
  // Account c has nothing running: it goes next, not a's next chunk (which would leave c alone at the end).
  await finish('a1');
  expect(started.at(-1)).toBe('c1');
  await finish('a2');
  expect(started.at(-1)).toBe('a3');
  // One running on each account: a tie goes to the oldest job.
  await finish('b1');
  expect(started.at(-1)).toBe('a4');
  await finish('a3');
  expect(started.at(-1)).toBe('b3');
});

test('a scheduled job on an account counts against its limit, and is never held back itself', async () => {
  const { share, started, push, finish } = harness(4);
  let release!: () => void;
  const scheduled = share.occupy('google_ads:1', () => new Promise<void>((resolve) => (release = resolve)));
  const second = share.occupy('google_ads:1', async () => 'ran at once');
  await expect(second).resolves.toBe('ran at once');
  push('b1', 'A', 'google_ads:1', 2);
  push('b2', 'A', 'google_ads:1', 2);
  expect(started).toEqual(['b1']);
  release();
  await scheduled;
  expect(started).toEqual(['b1', 'b2']);
  await finish('b1');
});

test('closing cancels what waits (its messages go back) and whatever comes later', () => {
  const { share, started, cancelled, push } = harness(1);
  push('a', 'A', 'l', 1);
  push('b', 'A', 'l', 1);
  share.close();
  push('c', 'B', 'm', 1);
  expect(started).toEqual(['a']);
  expect(cancelled).toEqual(['b', 'c']);
});

test('the ad account of a job key: a backfill chunk’s and a scheduled job’s', () => {
  expect(accountOfJobKey('act_1234_2026-01-01')).toBe('act_1234');
  expect(accountOfJobKey('1234567890')).toBe('1234567890');
});
