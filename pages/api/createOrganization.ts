import { createOrganizationSchema } from '@/lib/shared/schemas/organization';
import { forbidden } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { startOrganization } from '@/lib/server/services/organizations';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: createOrganizationSchema,
    async handle({ caller, body }) {
      // The creator becomes the owner, so the creator can only be the caller.
      if (body.userId !== caller.uid) throw forbidden();
      const organizationId = await startOrganization(
        { uid: caller.uid, email: caller.email },
        { name: body.companyName, logo: body.company_logo ?? null, isDefault: body.isDefault },
      );
      return { organizationId };
    },
  }),
});
