import { portalSchema } from '@/lib/shared/schemas/billing';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { openPortal } from '@/lib/server/services/billing';

/** POST /api/billing/portal: the Stripe customer portal (change plan, card, cancel). Owners and admins. */
export default createHandler({
  POST: route({
    access: 'orgMember',
    body: portalSchema,
    orgId: ({ body }) => body.organizationId,
    permission: ['billing', 'update'],
    handle: ({ org }) => openPortal(org),
  }),
});
