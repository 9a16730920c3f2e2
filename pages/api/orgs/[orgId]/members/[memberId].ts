import { changeRoleSchema, memberRouteSchema } from '@/lib/shared/schemas/team';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { changeMemberRole } from '@/lib/server/repos/members';

/** PATCH { role } changes a member's role. */
export default createHandler({
  PATCH: route({
    access: 'orgMember',
    query: memberRouteSchema,
    body: changeRoleSchema,
    permission: ['member', 'update'],
    async handle({ caller, org, query, body }) {
      await changeMemberRole(org.id, query.memberId, body.role, { uid: caller.uid, role: org.role });
      return { success: true };
    },
  }),
});
