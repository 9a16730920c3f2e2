/** `npm run seed`: seeds the demo data into an emulator stack that is already running. */
import { DEV_PORTS, portsFromEnv, stackEnv } from '@/scripts/lib/stack';

async function main() {
  Object.assign(process.env, stackEnv(portsFromEnv(DEV_PORTS)), { ...process.env });
  const { seedDemo } = await import('@/scripts/lib/seed');
  await seedDemo();
  console.log('Demo data seeded.');
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
