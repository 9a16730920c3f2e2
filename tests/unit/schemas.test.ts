import { trackSchema } from '@/lib/shared/schemas/analytics';
import { documentIdSchema, isDocumentId } from '@/lib/shared/schemas/ids';
import { organizationDataQuerySchema } from '@/lib/shared/schemas/organization';
import { sendInvitationSchema } from '@/lib/shared/schemas/team';
import { EMAIL_MAX_LENGTH } from '@/lib/shared/team';

test.each(['acme', 'org-123', 'Demo_Org', '_x_', '__x', 'x__', '...', 'a.b', 'x'.repeat(128)])('%s is a document id', (id) => {
  expect(documentIdSchema.safeParse(id).success).toBe(true);
  expect(isDocumentId(id)).toBe(true);
});

test.each(['', 'a/b', '/', '..', '.', '__x__', '____', '__.__', '__\n__', 'x'.repeat(129), 42, null])('%j is not a document id', (id) => {
  expect(documentIdSchema.safeParse(id).success).toBe(false);
  expect(isDocumentId(id)).toBe(false);
});

test('organization data queries name an organization', () => {
  expect(organizationDataQuerySchema.safeParse({ documentId: 'acme', type: 'organization' }).success).toBe(true);
  expect(organizationDataQuerySchema.safeParse({ documentId: 'acme', type: 'credentials' }).success).toBe(false);
  expect(organizationDataQuerySchema.safeParse({ documentId: '__acme__', type: 'organization' }).success).toBe(false);
});

describe('invitation emails', () => {
  const invitation = (email: string) => ({ email, organization_id: 'acme', inviter_user_id: 'u1', inviter_email: 'owner@example.test' });
  const address = (length: number) => `${'a'.repeat(length - '@example.test'.length)}@example.test`;

  test(`an address of ${EMAIL_MAX_LENGTH} characters is accepted, one more is not — with a message for the form`, () => {
    expect(address(EMAIL_MAX_LENGTH)).toHaveLength(254);
    expect(sendInvitationSchema.safeParse(invitation(address(EMAIL_MAX_LENGTH))).success).toBe(true);
    const result = sendInvitationSchema.safeParse(invitation(address(EMAIL_MAX_LENGTH + 1)));
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => [issue.path.join('.'), issue.message])).toContainEqual([
      'email',
      'An email address has at most 254 characters',
    ]);
  });

  test('a 312-character address (issue 12) is refused', () => {
    expect(sendInvitationSchema.safeParse(invitation(address(312))).success).toBe(false);
  });
});

test('a tracked event names an organization only by a valid id', () => {
  const event = (orgId: unknown) => ({ userId: 'u1', eventName: 'Error Received', properties: { org_id: orgId } });
  expect(trackSchema.safeParse(event('acme')).success).toBe(true);
  expect(trackSchema.safeParse(event(null)).success).toBe(true);
  for (const bad of ['..', 'a/b', '__x__', '', 7]) expect(trackSchema.safeParse(event(bad)).success).toBe(false);
});
