import { MIXPANEL_RESIDENCIES, type MixpanelResidency } from '@/lib/shared/integrations/platforms';
import type { Session } from '@/lib/server/connectors/types';

/** Mixpanel as a destination: a service account (username and secret) of one project. */
export interface MixpanelCredential {
  type: 'mixpanel';
  username: string;
  secret: string;
  projectId: string;
  residency: MixpanelResidency;
}

/**
 * A checked service account. `accessToken` is its Basic credential (base64 of username:secret),
 * and the session carries the project and residency it was checked against: every Mixpanel call
 * names the project (`project_id`) and goes to the residency's host, and the caller hands a
 * connector the session, never the credential.
 */
export interface MixpanelSession extends Session<MixpanelCredential> {
  projectId: string;
  residency: MixpanelResidency;
}

export const isResidency = (value: unknown): value is MixpanelResidency => (MIXPANEL_RESIDENCIES as readonly unknown[]).includes(value);

/** The Basic credential of a service account. */
export const basicToken = (credential: Pick<MixpanelCredential, 'username' | 'secret'>) =>
  Buffer.from(`${credential.username}:${credential.secret}`).toString('base64');

export function mixpanelSession(credential: MixpanelCredential): MixpanelSession {
  return { accessToken: basicToken(credential), rotated: null, projectId: credential.projectId, residency: credential.residency };
}

/** The project and residency of a session this connector opened; any other session is a programming error. */
export function mixpanelSessionOf(session: Session): MixpanelSession {
  const { projectId, residency } = session as Partial<MixpanelSession>;
  if (typeof projectId !== 'string' || projectId === '' || !isResidency(residency))
    throw new Error('Not a session of the Mixpanel connector');
  return session as MixpanelSession;
}
