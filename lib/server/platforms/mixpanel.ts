import type { MixpanelResidency } from '@/lib/integrations/platforms';
import { mixpanelConfig } from '@/lib/server/platforms/config';
import { PlatformError, requestJson } from '@/lib/server/platforms/http';

export interface MixpanelCredentials {
  username: string;
  secret: string;
  projectId: string;
  residency: MixpanelResidency;
}

/**
 * Checks a service account against the residency's host (`GET /api/app/me`, Basic auth) and that
 * it can reach the project; returns the project's name.
 */
export async function checkMixpanel(credentials: MixpanelCredentials): Promise<string> {
  const auth = Buffer.from(`${credentials.username}:${credentials.secret}`).toString('base64');
  const { status, body } = await requestJson('mixpanel', `${mixpanelConfig().appApiUrl[credentials.residency]}/api/app/me`, {
    headers: { Authorization: `Basic ${auth}`, Accept: 'application/json' },
  });
  if (status === 401 || status === 403) {
    throw new PlatformError('mixpanel', 400, 'Mixpanel did not accept this service account username and secret.', true);
  }
  if (status !== 200) throw new PlatformError('mixpanel', 502, 'Mixpanel could not be reached. Try again in a minute.');
  const projects = ((body.results as { projects?: Record<string, { name?: string }> } | undefined)?.projects ?? {}) as Record<string, { name?: string }>;
  const project = projects[credentials.projectId];
  if (!project) {
    throw new PlatformError(
      'mixpanel',
      400,
      `This service account has no access to project ${credentials.projectId} in the ${credentials.residency} data center. Check the project id and data residency.`,
    );
  }
  return project.name ?? `Project ${credentials.projectId}`;
}
