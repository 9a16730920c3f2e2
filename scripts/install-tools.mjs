// Installs firebase-tools into its own folder (tools/firebase) after the app's `npm ci`/`npm install`.
// --omit=optional skips the hosting emulator's native re2 module, which would compile for minutes.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'firebase');
const installed = path.join(dir, 'node_modules', 'firebase-tools', 'package.json');
const wanted = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies['firebase-tools'];

if (process.env.SIGNALBRIDGE_SKIP_TOOLS) {
  // An image's build (Dockerfile) runs no emulator.
  console.log('SIGNALBRIDGE_SKIP_TOOLS is set: firebase-tools is not installed');
} else if (existsSync(installed) && JSON.parse(readFileSync(installed, 'utf8')).version === wanted) {
  console.log(`firebase-tools ${wanted} is installed`);
} else {
  console.log(`Installing firebase-tools ${wanted} into tools/firebase…`);
  execSync('npm ci --omit=optional --no-audit --no-fund', { cwd: dir, stdio: 'inherit' });
}
