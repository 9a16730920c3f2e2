/**
 * `npm run organization-directory`: writes the super admin's directory of organizations afresh from the
 * organizations collection (lib/server/repos/organizationDirectory.ts). Run it once where organizations
 * were created before the directory existed, while no one creates or renames one. Against the running dev
 * emulators by default; with FIREBASE_PROJECT_ID and credentials set and no emulator hosts, against that
 * real project.
 */
import { DEV_PORTS, portsFromEnv, stackEnv } from '@/scripts/lib/stack';

async function main() {
  const realProject = process.env.FIREBASE_PROJECT_ID && !process.env.FIREBASE_PROJECT_ID.startsWith('demo-');
  if (!realProject) Object.assign(process.env, { ...stackEnv(portsFromEnv(DEV_PORTS)), ...process.env });

  const { rebuildDirectory } = await import('@/lib/server/repos/organizationDirectory');
  const count = await rebuildDirectory();
  console.log(`The organization directory lists ${count} organizations.`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
