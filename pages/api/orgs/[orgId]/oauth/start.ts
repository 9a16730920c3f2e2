import { PLATFORMS_OF_KIND, PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import { can } from '@/lib/shared/permissions';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { oauthStartSchema } from '@/lib/shared/schemas/oauth';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { DomainError, forbidden } from '@/lib/server/errors';
import { startOAuth } from '@/lib/server/services/oauth';

/**
 * POST /api/orgs/{orgId}/oauth/start {platform, kind, objectId?} → {url}: the provider's consent
 * screen with a signed, single-use, expiring state. Reauth (objectId) needs update rights on the
 * object; a new one needs create rights.
 */
export default createHandler({
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: oauthStartSchema,
    async handle({ org, caller, body }) {
      const { platform, kind, objectId } = body;
      if (!PLATFORMS_OF_KIND[kind].includes(platform)) {
        throw new DomainError('invalid', `${PLATFORM_LABELS[platform]} cannot be a ${kind}.`, {
          reason: 'invalid_request',
          fieldErrors: { platform: ['Not available here'] },
        });
      }
      if (!can(org.role, kind, objectId ? 'update' : 'create')) throw forbidden();
      return startOAuth(org.id, caller.uid, body);
    },
  }),
});
