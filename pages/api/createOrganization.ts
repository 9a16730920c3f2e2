import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { createOrganizationSchema } from '@/lib/shared/schemas/organization';
import { trackEvent } from '@/lib/server/analytics';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { forbidden } from '@/lib/server/http/errors';
import { createOrganization } from '@/lib/server/repos/organizations';
import { getUserRecord } from '@/lib/server/repos/users';

export default createHandler({
  POST: route({
    access: 'signedIn',
    body: createOrganizationSchema,
    async handle({ caller, body }) {
      // The creator becomes the owner, so the creator can only be the caller.
      if (body.userId !== caller.uid) throw forbidden();
      const record = await getUserRecord(caller.uid);
      const organizationId = await createOrganization({
        name: body.companyName,
        logo: body.company_logo ?? null,
        isDefault: body.isDefault,
        owner: { uid: caller.uid, email: caller.email ?? record?.email ?? '', fullName: record?.fullName ?? '' },
      });
      await trackEvent(caller.uid, ANALYTICS_EVENTS.organizationCreated, { org_id: organizationId });
      return { organizationId };
    },
  }),
});
