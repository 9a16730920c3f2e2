import { createPaymentSchema } from '@/lib/shared/schemas/integrations';
import { orgRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { listPayments } from '@/lib/server/repos/payments';
import { createPayment } from '@/lib/server/services/payments';

export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    permission: ['payment', 'read'],
    preload: ({ orgId }) => listPayments(orgId),
    handle: ({ preloaded }) => ({ payments: preloaded }),
  }),
  POST: route({
    access: 'orgMember',
    subscription: 'required',
    query: orgRouteSchema,
    body: createPaymentSchema,
    permission: ['payment', 'create'],
    handle: async ({ org, caller, body }) => ({ payment: await createPayment(org.id, caller.uid, body) }),
  }),
});
