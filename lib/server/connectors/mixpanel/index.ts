import { invalidFields } from '@/lib/server/errors';
import { mixpanelRowSource } from '@/lib/server/connectors/mixpanel/conversionSource';
import { replaceAdData } from '@/lib/server/connectors/mixpanel/adData';
import { mixpanelConfig } from '@/lib/server/connectors/mixpanel/config';
import { mixpanelDelivery } from '@/lib/server/connectors/mixpanel/delivery';
import {
  basicToken,
  isResidency,
  mixpanelSession,
  mixpanelSessionOf,
  type MixpanelCredential,
} from '@/lib/server/connectors/mixpanel/session';
import { requestJson } from '@/lib/server/connectors/http';
import { PlatformError } from '@/lib/server/connectors/errors';
import type { Connector } from '@/lib/server/connectors/types';

export type { MixpanelCredential, MixpanelSession } from '@/lib/server/connectors/mixpanel/session';

/**
 * Checks a service account against the residency's host (`GET /api/app/me`, Basic auth) and that
 * it can reach the project; returns the project's name.
 */
async function checkMixpanel(credentials: Pick<MixpanelCredential, 'projectId' | 'residency'>, basic: string): Promise<string> {
  const { status, body } = await requestJson('mixpanel', `${mixpanelConfig().appApiUrl[credentials.residency]}/api/app/me`, {
    headers: { Authorization: `Basic ${basic}`, Accept: 'application/json' },
  });
  if (status === 401 || status === 403) {
    throw new PlatformError('mixpanel', 'needs_reauth', 'Mixpanel did not accept this service account username and secret.');
  }
  if (status !== 200) throw new PlatformError('mixpanel', 'retryable', 'Mixpanel could not be reached. Try again in a minute.');
  const projects = ((body.results as { projects?: Record<string, { name?: string }> } | undefined)?.projects ?? {}) as Record<
    string,
    { name?: string }
  >;
  const project = projects[credentials.projectId];
  if (!project) {
    throw new PlatformError(
      'mixpanel',
      'invalid',
      `This service account has no access to project ${credentials.projectId} in the ${credentials.residency} data center. Check the project id and data residency.`,
    );
  }
  return project.name ?? `Project ${credentials.projectId}`;
}

export const mixpanel: Connector<MixpanelCredential> = {
  id: 'mixpanel',
  auth: {
    key: {
      field: 'secret',
      async connect({ username = '', secret = '', projectId = '', residency }) {
        if (!isResidency(residency)) throw invalidFields({ residency: ['Pick a data residency'] });
        const credential: MixpanelCredential = { type: 'mixpanel', username, secret, projectId, residency };
        return { credential, accountName: await checkMixpanel(credential, basicToken(credential)), settings: { projectId, residency } };
      },
    },
  },
  // A service account has no token to refresh: the session is a check that it still works, and
  // carries its Basic credential with the project and residency every later call needs.
  async openSession(credential) {
    await checkMixpanel(credential, basicToken(credential));
    return mixpanelSession(credential);
  },
  listAccounts: async () => [],
  listTargets: async () => [],
  deliver: mixpanelDelivery,
  writer: {
    // The same check as opening a session: Mixpanel still accepts the service account for the project.
    async check(session, target) {
      const { accessToken, projectId, residency } = mixpanelSessionOf(session);
      if (target.projectId !== projectId)
        throw new PlatformError('mixpanel', 'forbidden', `This Mixpanel login is for project ${projectId}, not ${target.projectId}.`);
      const name = await checkMixpanel({ projectId, residency }, accessToken);
      return `Mixpanel accepts this service account for ${name} (project ${projectId}, ${residency} data center): Ad Data events can be imported.`;
    },
    replace: replaceAdData,
  },
  source: mixpanelRowSource,
};
