import { DomainError } from '@/lib/server/errors';
import { createHandler, route } from '@/lib/server/http/createHandler';
import { clientAddress } from '@/lib/server/http/clientAddress';
import { touch } from '@/lib/server/limits/memoryLimits';
import { TokenBucket } from '@/lib/server/limits/tokenBucket';
import { previewInvitation } from '@/lib/server/repos/invitations';
import { tooManyInvitationPreviewsMessage } from '@/lib/shared/rateLimitMessages';
import { invitationPreviewSchema } from '@/lib/shared/schemas/team';

/**
 * Previews one address may ask for a minute: an invitee opens their link a few times, a script guessing
 * secrets is stopped. Counted in this instance's memory (lib/server/limits/memoryLimits.ts): a public route
 * must not make a flood cost a Firestore write per request.
 */
export const PREVIEWS_PER_ADDRESS_PER_MINUTE = 30;
const previewsByAddress = new Map<string, TokenBucket>();

function admitPreview(address: string): void {
  const perSecond = PREVIEWS_PER_ADDRESS_PER_MINUTE / 60;
  const bucket = touch(previewsByAddress, address, () => new TokenBucket(perSecond, PREVIEWS_PER_ADDRESS_PER_MINUTE));
  const wait = bucket.take(1);
  if (wait > 0) {
    const retryAfter = Math.ceil(wait);
    throw new DomainError('rate_limited', tooManyInvitationPreviewsMessage(PREVIEWS_PER_ADDRESS_PER_MINUTE, retryAfter), { retryAfter });
  }
}

/**
 * POST /api/invitationPreview — for the signed-out invitation page: the organization's name, the
 * inviter's name and the invited email, to the holder of one of the link secrets only (a resend adds a
 * secret and keeps the earlier ones valid until the invitation expires). A wrong or expired secret, or an
 * invitation no longer pending, all get the same 404. Limited per client address (429 with Retry-After).
 */
export default createHandler({
  POST: route({
    access: 'public',
    body: invitationPreviewSchema,
    handle: async ({ req, body }) => {
      admitPreview(clientAddress(req) ?? 'unknown');
      return { success: true, invitation: await previewInvitation(body.invitationId, body.token) };
    },
  }),
});
