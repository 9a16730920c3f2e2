import type { App, AppPlatformTarget } from '@/lib/shared/integrations/apps';
import { PLATFORM_LABELS, type AdPlatform } from '@/lib/shared/integrations/platforms';
import { connectorFor } from '@/lib/server/connectors/registry';
import { withSession } from '@/lib/server/credentials';
import { invalidFields } from '@/lib/server/errors';
import { saveAppTarget } from '@/lib/server/repos/apps';

/**
 * Points one platform's conversions at a pixel / conversion action / goal, which must be one the
 * destination's account offers right now (fetched from the platform, never taken from the browser).
 */
export async function setAppTarget(
  orgId: string,
  id: string,
  input: { platform: AdPlatform; destinationId: string; accountId: string; targetId: string },
): Promise<App> {
  const invalid = (field: string, message: string) => invalidFields({ [field]: [message] });
  const targets = await withSession(orgId, 'destination', input.destinationId, async (session, destination) => {
    if (destination.platform !== input.platform) throw invalid('destinationId', `Pick a ${PLATFORM_LABELS[input.platform]} destination`);
    const account = destination.accounts.find((candidate) => candidate.id === input.accountId);
    if (!account) throw invalid('accountId', 'Pick one of this destination’s accounts');
    return connectorFor(input.platform).listTargets(session, account);
  });
  const target = targets.find((candidate) => candidate.id === input.targetId);
  if (!target) throw invalid('targetId', 'Pick one from the list');
  const routed: AppPlatformTarget = { destinationId: input.destinationId, accountId: input.accountId, targetId: target.id, targetName: target.name };
  return saveAppTarget(orgId, id, input.platform, routed);
}
