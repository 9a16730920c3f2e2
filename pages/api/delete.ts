import { z } from 'zod';
import { forbidden } from '@/lib/server/errors';
import { can } from '@/lib/shared/permissions';
import { documentIdSchema } from '@/lib/shared/schemas/ids';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { ApiError } from '@/lib/server/http/errors';
import { deleteApp } from '@/lib/server/services/apps';
import { deleteIntegration } from '@/lib/server/services/integrations';
import { deletePayment } from '@/lib/server/repos/payments';

/**
 * GET /api/delete?documentId={orgId}&type={source|destination|payment|app}&key={id} (docs/PRODUCT.md §5).
 * A GET that deletes would follow a link from any site with the session cookie, so this one only
 * takes the bearer ID token our own client sends.
 */
export default createHandler({
  GET: route({
    access: 'orgMember',
    query: z.object({ documentId: documentIdSchema, type: z.enum(['source', 'destination', 'payment', 'app']), key: documentIdSchema }),
    orgId: ({ query }) => query.documentId,
    async handle({ req, org, query, caller }) {
      if (!req.headers.authorization?.startsWith('Bearer ')) {
        throw new ApiError(401, 'unauthenticated', 'Send the ID token as an Authorization: Bearer header.');
      }
      if (!can(org.role, query.type, 'delete')) throw forbidden();
      if (query.type === 'source' || query.type === 'destination') await deleteIntegration(org.id, query.type, query.key, caller.uid);
      else if (query.type === 'payment') await deletePayment(org.id, query.key);
      else await deleteApp(org.id, query.key);
      return { success: true };
    },
  }),
});
