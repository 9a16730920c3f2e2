import { mixpanel } from '@/lib/server/connectors/mixpanel';
import { type FakePlatforms, platformsEnv, SANDBOX_MIXPANEL, startFakePlatforms } from '@/sandbox/platforms';
import { spyOnLog, type LogSpy } from '@/tests/fixtures/logSpy';

/**
 * The sandbox for a file of Mixpanel connector tests. Refusals are logged for operators and are expected
 * here: `logged` holds what went to the log (a test may check it for secrets).
 */
export interface MixpanelSandbox {
  platforms: FakePlatforms;
  logged: LogSpy;
}

export async function openMixpanelSandbox(): Promise<MixpanelSandbox> {
  const logged = spyOnLog();
  const platforms = await startFakePlatforms({ appUrl: 'http://localhost:3999' });
  Object.assign(process.env, platformsEnv(platforms));
  return { platforms, logged };
}

export async function closeMixpanelSandbox({ platforms, logged }: MixpanelSandbox): Promise<void> {
  logged.mockRestore();
  await platforms.close();
}

/** The sandbox's service account connected to one of its projects (as the key form does), and its session. */
export async function connectMixpanel(projectId: string, residency: 'US' | 'EU') {
  const { username, secret } = SANDBOX_MIXPANEL;
  const connection = await mixpanel.auth.key!.connect({ username, secret, projectId, residency });
  return { accountName: connection.accountName, session: await mixpanel.openSession(connection.credential) };
}
