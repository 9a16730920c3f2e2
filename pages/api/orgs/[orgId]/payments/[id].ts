import { updatePaymentSchema } from '@/lib/shared/schemas/integrations';
import { objectRouteSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { deletePayment, getPayment, updatePayment } from '@/lib/server/repos/payments';

export default createHandler({
  GET: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    permission: ['payment', 'read'],
    handle: async ({ org, query }) => ({ payment: await getPayment(org.id, query.id) }),
  }),
  PATCH: route({
    access: 'orgMember',
    subscription: 'required',
    query: objectRouteSchema,
    body: updatePaymentSchema,
    permission: ['payment', 'update'],
    handle: async ({ org, query, body }) => ({ payment: await updatePayment(org.id, query.id, body) }),
  }),
  DELETE: route({
    access: 'orgMember',
    query: objectRouteSchema,
    permission: ['payment', 'delete'],
    async handle({ org, query }) {
      await deletePayment(org.id, query.id);
      return { success: true };
    },
  }),
});
