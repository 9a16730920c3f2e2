import { createHandler, route } from '@/lib/server/http/createHandler';
import { previewInvitation } from '@/lib/server/repos/invitations';
import { invitationPreviewSchema } from '@/lib/shared/schemas/team';

/**
 * POST /api/invitationPreview — for the signed-out invitation page: the organization's name, the
 * inviter's name and the invited email, to the holder of the link's secret only. A wrong, older or
 * expired secret, or an invitation no longer pending, all get the same 404.
 */
export default createHandler({
  POST: route({
    access: 'public',
    body: invitationPreviewSchema,
    handle: async ({ body }) => ({ success: true, invitation: await previewInvitation(body.invitationId, body.token) }),
  }),
});
