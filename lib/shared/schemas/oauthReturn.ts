import { z } from 'zod';
import { RETURN_PATHS, type IntegrationKind, type OAuthPlatform } from '@/lib/shared/integrations/platforms';

/**
 * POST /api/orgs/{orgId}/oauth/cancel: the provider came back with an error (the user pressed Cancel,
 * or the provider refused) instead of a code. The state is spent all the same.
 */
export const oauthCancelSchema = z.object({
  state: z.string().min(1, 'Required').max(512),
  returnPath: z.enum(RETURN_PATHS),
  /** The provider's `error` (e.g. `access_denied`): kept for the log, never trusted. */
  error: z.string().max(200).optional(),
});

/** Its answer: what was cancelled, for the message the return page shows. */
export interface OAuthCancelled {
  cancelled: true;
  platform: OAuthPlatform;
  kind: IntegrationKind;
  reauthenticating: boolean;
}
