/**
 * `npm run build`: the two artifacts production runs, each with `node` alone (no tsx, no TypeScript,
 * no devDependency at run time):
 * - the Next.js standalone server (`<distDir>/standalone/server.js`), with the static files and
 *   `public/` copied beside it as Next's docs ask (the standalone folder leaves them out);
 * - the worker, bundled by esbuild into `dist/worker.cjs`: our code in one file, the production
 *   dependencies left to `node_modules` (an image installs them with `npm ci --omit=dev`).
 * `npm start` and `npm run worker:prod` run them.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '@/scripts/lib/stack';

export const DIST_DIR = process.env.NEXT_DIST_DIR || '.next';
export const WORKER_BUNDLE = path.join(ROOT, 'dist', 'worker.cjs');

function nextBuild(): void {
  const result = spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit', env: process.env });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status})`);
}

/** The standalone server serves `<distDir>/static` and `public/` only when they sit beside it. */
function completeStandalone(): void {
  const dist = path.join(ROOT, DIST_DIR);
  const standalone = path.join(dist, 'standalone');
  if (!existsSync(path.join(standalone, 'server.js'))) throw new Error(`${standalone}/server.js is missing: is output 'standalone' set?`);
  cpSync(path.join(dist, 'static'), path.join(standalone, DIST_DIR, 'static'), { recursive: true });
  cpSync(path.join(ROOT, 'public'), path.join(standalone, 'public'), { recursive: true });
}

export async function bundleWorker(): Promise<void> {
  rmSync(path.dirname(WORKER_BUNDLE), { recursive: true, force: true });
  await build({
    entryPoints: [path.join(ROOT, 'workers/index.ts')],
    outfile: WORKER_BUNDLE,
    bundle: true,
    platform: 'node',
    target: 'node24',
    // CommonJS: Node 24 requires our ES-module-only dependencies (p-queue, jose) natively.
    format: 'cjs',
    packages: 'external',
    sourcemap: true,
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
}

async function main() {
  const workerOnly = process.argv.includes('--worker-only');
  if (!workerOnly) {
    nextBuild();
    completeStandalone();
  }
  await bundleWorker();
  console.log(`Built ${workerOnly ? '' : `${DIST_DIR}/standalone/server.js and `}${path.relative(ROOT, WORKER_BUNDLE)}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
