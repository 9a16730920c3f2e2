/**
 * The project runs on one Node line, the one `.nvmrc` names (`engines` says the same). npm scripts run
 * the `node` devDependency (npm puts `node_modules/.bin` first on their PATH), so a machine whose own
 * Node is older still runs the project on it; this check catches a script started some other way.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '@/scripts/lib/stack';

export function assertProjectNode(): void {
  const wanted = readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim();
  const major = (version: string) => version.replace(/^v/, '').split('.')[0];
  if (major(process.version) !== major(wanted)) {
    console.error(
      `SignalBridge runs on Node ${wanted} (.nvmrc); this is ${process.version}. Run it through npm (npm run dev, npm test), which uses the project's own Node, or \`nvm use\`.`,
    );
    process.exit(1);
  }
}
