/**
 * `npm run stack`: the emulators alone, until Ctrl-C.
 * `npm run stack -- --exec "<command>"`: the emulators around one command (its exit code is ours).
 */
import { spawn } from 'node:child_process';
import { DEV_PORTS, portsFromEnv, startStack, stopOnSignals, TEST_PORTS } from '@/scripts/lib/stack';

async function main() {
  const args = process.argv.slice(2);
  const execIndex = args.indexOf('--exec');
  const command = execIndex >= 0 ? args[execIndex + 1] : undefined;
  const ports = portsFromEnv(command ? TEST_PORTS : DEV_PORTS);
  const stack = await startStack(ports, { verbose: !command });
  stopOnSignals(stack.stop);
  console.log(`Auth emulator on 127.0.0.1:${ports.auth}, Firestore on 127.0.0.1:${ports.firestore}, Pub/Sub on 127.0.0.1:${ports.pubsub}`);
  if (!command) return;

  const child = spawn(command, { shell: true, stdio: 'inherit', env: { ...process.env, ...stack.env } });
  const code = await new Promise<number>((resolve) => child.on('exit', (exitCode) => resolve(exitCode ?? 1)));
  await stack.stop();
  process.exit(code);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
