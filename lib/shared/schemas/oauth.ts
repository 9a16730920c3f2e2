import { z } from 'zod';
import {
  INTEGRATION_KINDS,
  OAUTH_PLATFORMS,
  RETURN_PATHS,
  type IntegrationKind,
  type OAuthPlatform,
} from '@/lib/shared/integrations/platforms';
import { documentIdSchema } from '@/lib/shared/schemas/ids';

/** The OAuth round trip's requests and answers: `/api/orgs/{orgId}/oauth/{start|complete|cancel}`. */

/** POST …/oauth/start: the consent screen of a platform, to connect a new source or destination or reconnect one. */
export const oauthStartSchema = z.object({
  platform: z.enum(OAUTH_PLATFORMS),
  kind: z.enum(INTEGRATION_KINDS),
  /** Set when replacing the credentials of an existing source or destination. */
  objectId: documentIdSchema.optional(),
});
export type OAuthStartInput = z.infer<typeof oauthStartSchema>;

/** POST …/oauth/complete: the provider came back with a code. */
export const oauthCompleteSchema = z.object({
  state: z.string().min(1, 'Required').max(512),
  code: z.string().min(1, 'Required').max(2048),
  returnPath: z.enum(RETURN_PATHS),
});

/** Its answer: the object created, or the one whose login was replaced. */
export interface OAuthCompleted {
  kind: IntegrationKind;
  id: string;
  platform: OAuthPlatform;
  reauthenticated: boolean;
}

/**
 * POST …/oauth/cancel: the provider came back with an error (the user pressed Cancel, or the provider
 * refused) instead of a code. The state is spent all the same.
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
