import { removeMemberSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { removeMember } from '@/lib/server/repos/members';

export default createHandler({
  POST: route({
    access: 'orgMember',
    body: removeMemberSchema,
    orgId: ({ body }) => body.organizationId,
    // Members may leave; removing others is checked against the table and ranks in removeMember.
    permission: ['member', 'read'],
    async handle({ caller, org, body }) {
      await removeMember(org.id, body.memberId, { uid: caller.uid, role: org.role });
      return { success: true };
    },
  }),
});
