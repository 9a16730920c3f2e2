import { documentIdSchema, organizationDataQuerySchema } from '@/lib/schemas/organization';

test.each(['acme', 'org-123', 'Demo_Org'])('%s is a document id', (id) => {
  expect(documentIdSchema.safeParse(id).success).toBe(true);
});

test.each(['', 'a/b', '..', '.', 'x'.repeat(129)])('%j is not a document id', (id) => {
  expect(documentIdSchema.safeParse(id).success).toBe(false);
});

test('organization data queries name an organization', () => {
  expect(organizationDataQuerySchema.safeParse({ documentId: 'acme', type: 'organization' }).success).toBe(true);
  expect(organizationDataQuerySchema.safeParse({ documentId: 'acme', type: 'credentials' }).success).toBe(false);
});
