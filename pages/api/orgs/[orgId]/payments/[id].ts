import { z } from 'zod';
import { objectRouteSchema } from '@/lib/shared/schemas/integrations';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { deletePayment, getPayment, renamePayment } from '@/lib/server/repos/payments';

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
    body: z.object({ name: z.string().trim().min(1, 'Enter a name').max(100, 'At most 100 characters') }),
    permission: ['payment', 'update'],
    handle: async ({ org, query, body }) => ({ payment: await renamePayment(org.id, query.id, body.name) }),
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
