/**
 * Section 9 of `npm run bench` (`npm run bench -- --only reconcile` runs it alone): "Counted by the
 * platform" for 100 conversions of one organization, on a stack of its own, against the sandbox.
 *
 * The conversions (BENCH_RECONCILE_CONVERSIONS, default 100) are spread over one Meta, one Google and
 * one Microsoft account (several pixels' events, conversion actions and goals each); each had events
 * delivered. One first read of the organization (30 days) is timed and its platform requests counted:
 * - report calls beside the floor, accounts × days read (one report per account per day read);
 * - the read's time beside the bare baseline measured in the same run: the same connectors' reads
 *   alone, one per account, without Firestore (what the job adds is ours: the hour documents read and
 *   the day documents written per conversion).
 */
import { performance } from 'node:perf_hooks';
import type { AdPlatform } from '@/lib/shared/integrations/platforms';
import { portsFromEnv, startStack, type StackPorts } from '@/scripts/lib/stack';

/** Ports of this section's stack: neither the dev stack's, the tests', nor another section's. */
const RECONCILE_PORTS: StackPorts = { auth: 9599, firestore: 8580, hub: 4450, logging: 4550, pubsub: 8585 };
const CONVERSIONS = Number(process.env.BENCH_RECONCILE_CONVERSIONS || 100);
/** The platforms whose counted conversions this bench reads (a platform added later joins it here, if at all). */
type Benched = Extract<AdPlatform, 'meta_ads' | 'google_ads' | 'microsoft_ads'>;
const TARGETS: Record<Benched, { accountId: string; targets: Array<{ id: string; name: string }>; events: string[][] }> = {
  meta_ads: {
    accountId: '101',
    targets: [{ id: '555000111', name: 'Acme Shoes Pixel' }],
    events: [['Purchase'], ['Lead'], ['AddToCart'], []],
  },
  google_ads: { accountId: '5556667778', targets: [{ id: '9001', name: 'Purchase' }], events: [[]] },
  microsoft_ads: {
    accountId: '301',
    targets: [
      { id: '8001', name: 'Offline purchase' },
      { id: '8002', name: 'Qualified lead' },
    ],
    events: [[]],
  },
};

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export async function benchReconcile() {
  const ports = portsFromEnv(RECONCILE_PORTS);
  const stack = await startStack(ports);
  Object.assign(process.env, stack.env);
  try {
    const { platformsEnv, startFakePlatforms } = await import('@/sandbox/platforms');
    const platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
    Object.assign(process.env, platformsEnv(platforms));
    const { connectDestination } = await import('@/tests/api/helpers/conversions');
    const { createTestOrganization, createTestUser } = await import('@/tests/fixtures/firebase');
    const { createApp } = await import('@/lib/server/repos/apps');
    const { createConversion } = await import('@/lib/server/repos/conversions');
    const { recordDelivery } = await import('@/lib/server/repos/deliveryLog');
    const { openSessionOf } = await import('@/lib/server/credentials');
    const { connectorFor } = await import('@/lib/server/connectors/registry');
    const { reconcileOrganization } = await import('@/lib/server/counted/reconcile');
    const { windowDays } = await import('@/lib/shared/conversions/reconciliation');

    const owner = await createTestUser();
    const orgId = await createTestOrganization([[owner, 'owner']]);
    const app = await createApp(orgId, owner.uid, {
      name: 'Bench',
      websiteUrl: 'https://bench.example',
      gtmContainerId: 'GTM-BENCH1',
      payloadUrls: [],
    });
    const platformsList = Object.keys(TARGETS) as Benched[];
    const destinations = Object.fromEntries(
      await Promise.all(platformsList.map(async (platform) => [platform, await connectDestination(orgId, owner.uid, platform)] as const)),
    ) as Record<Benched, string>;
    for (let index = 0; index < CONVERSIONS; index++) {
      const platform = platformsList[index % platformsList.length]!;
      const { accountId, targets, events } = TARGETS[platform];
      const target = targets[index % targets.length]!;
      const conversion = await createConversion(orgId, {
        name: `Bench ${index}`,
        source: { type: 'app', appId: app.id },
        destination: { destinationId: destinations[platform], platform, accountId, targetId: target.id, targetName: target.name },
        mapping: { events: events[index % events.length]!, value: { mode: 'event' }, identifiers: ['email', 'clickIds'] },
        uid: owner.uid,
      });
      await recordDelivery(orgId, conversion.id, {
        test: false,
        latencyMs: 10,
        rows: Array.from({ length: 5 }, (_, row) => ({ id: `bench-${index}-${row}`, status: 'delivered' as const })),
      });
    }

    const window = windowDays(new Date());
    let calls = 0;
    const started = performance.now();
    const result = await reconcileOrganization(orgId, { onCall: () => (calls += 1) });
    const readMs = performance.now() - started;

    // The bare baseline: each account's connector read alone, one after another, nothing stored.
    let bareCalls = 0;
    const bareStarted = performance.now();
    for (const platform of platformsList) {
      const { accountId, targets } = TARGETS[platform];
      const { session, integration } = await openSessionOf(orgId, 'destination', destinations[platform]);
      await connectorFor(platform).counted!(session, {
        account: integration.accounts.find((account) => account.id === accountId)!,
        // A name of what the conversions send: a target naming none reads nothing of Meta's (it cannot be told from other senders).
        targets: targets.map((target) => ({ ...target, events: ['Purchase'] })),
        from: window[0]!,
        to: window.at(-1)!,
        onCall: () => (bareCalls += 1),
      });
    }
    const bareMs = performance.now() - bareStarted;
    await platforms.close();

    const floor = result.accounts * result.days;
    console.log(`\nCounted by the platform: ${result.conversions} conversions over ${result.accounts} accounts, ${result.days} days read`);
    console.log(
      `  report calls          ${String(calls).padStart(6)}   floor (accounts × days) ${floor}   ${(calls / floor).toFixed(2)}× the floor`,
    );
    console.log(`  bare reads alone      ${String(bareCalls).padStart(6)} calls (one read per account, no Firestore)`);
    console.log(`  time                  ${secs(readMs).padStart(8)}   bare baseline ${secs(bareMs)}   ${(readMs / bareMs).toFixed(2)}×`);
  } finally {
    await stack.stop();
  }
}
