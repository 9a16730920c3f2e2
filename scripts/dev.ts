/** `npm run dev`: the local stack, the demo seed, the delivery worker and `next dev`, stopped together with Ctrl-C. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { DEMO } from '@/scripts/lib/demo';
import { assertProjectNode } from '@/scripts/lib/projectNode';
import { DEV_PORTS, portsFromEnv, ROOT, startStack, stopOnSignals } from '@/scripts/lib/stack';
import { startWorker } from '@/scripts/lib/worker';
import { customerIoEnv, startFakeCustomerIo } from '@/sandbox/customerio';
import { appOrigins, platformsEnv, startFakePlatforms } from '@/sandbox/platforms';
import { slackEnv, startFakeSlack } from '@/sandbox/slack';
import { startFakeStripe, stripeEnv } from '@/sandbox/stripe';

async function main() {
  assertProjectNode();
  const port = Number(process.env.PORT || 3000);
  const ports = portsFromEnv(DEV_PORTS);
  console.log('Starting the Auth, Firestore and Pub/Sub emulators…');
  const stack = await startStack(ports);
  // The local sandbox of the SaaS we call: emails land in the fake Customer.io, readable at /__fake/messages.
  const customerIo = await startFakeCustomerIo({ port: Number(process.env.FAKE_CUSTOMERIO_PORT || 4600) });
  // Slack alerts: a fake incoming webhook (paste its URL in Settings → Alerts), readable at /__fake/slack.
  const slack = await startFakeSlack({ port: Number(process.env.FAKE_SLACK_PORT || 4650) });
  const fakeStripe = await startFakeStripe({
    port: Number(process.env.FAKE_STRIPE_PORT || 12111),
    webhookUrl: `http://127.0.0.1:${port}/api/billing/webhook`,
  });
  // Google, Meta, Microsoft and Mixpanel: consent pages with an Allow button, tokens, accounts. They
  // accept the return routes of the configured APP_URL and of localhost, whichever the app runs on.
  const platforms = await startFakePlatforms({
    port: Number(process.env.FAKE_PLATFORMS_PORT || 4700),
    appUrl: appOrigins(port, process.env.APP_URL),
  });
  const env = {
    ...stack.env,
    ...platformsEnv(platforms),
    ...customerIoEnv(customerIo),
    ...stripeEnv(fakeStripe),
    ...slackEnv(slack),
    APP_URL: `http://localhost:${port}`,
    NEXT_PUBLIC_DEMO_ORG_ID: DEMO.orgId,
    NEXT_TELEMETRY_DISABLED: '1',
    ...process.env,
  };
  Object.assign(process.env, env);

  const { seedDemo } = await import('@/scripts/lib/seed');
  await seedDemo();

  // Data flows: the worker delivers conversions and runs connection syncs (a scheduler tick every minute).
  const worker = startWorker({ SYNC_TICK_MS: '60000', ...env });
  const next = spawn(process.execPath, [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'dev', '-p', String(port)], {
    cwd: ROOT,
    env,
    stdio: ['inherit', 'inherit', 'inherit'],
  });
  const stopAll = async () => {
    next.kill('SIGTERM');
    await worker.stop();
    await Promise.all([stack.stop(), customerIo.close(), slack.close(), fakeStripe.close(), platforms.close()]);
  };
  stopOnSignals(stopAll);
  next.on('exit', (code) => void stack.stop().finally(() => process.exit(code ?? 0)));

  console.log(
    [
      '',
      `  SignalBridge is starting on http://localhost:${port}`,
      `  Demo login: ${DEMO.email} / ${DEMO.password}  (organization "${DEMO.orgName}")`,
      `  Emulators: Auth 127.0.0.1:${ports.auth}, Firestore 127.0.0.1:${ports.firestore}, Pub/Sub 127.0.0.1:${ports.pubsub}`,
      '  Conversion delivery worker: running (npm run worker runs another)',
      `  Emails (fake Customer.io): ${customerIo.url}/__fake/messages`,
      `  Slack alerts: webhook URL ${slack.webhookUrl} (what it received: ${slack.url}/__fake/slack)`,
      `  Payments: a local Stripe sandbox at ${fakeStripe.url} (its Pay button subscribes; its index makes test payments)`,
      `  Conversions received by Meta, Google, Microsoft, Mixpanel: ${platforms.url}/__sandbox/conversions`,
      `  Identifiers each ad platform matched to its known people: ${platforms.url}/__sandbox/matches`,
      `  Ad platforms (fake Google, Meta, Microsoft, Mixpanel): ${platforms.url}/__sandbox`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
