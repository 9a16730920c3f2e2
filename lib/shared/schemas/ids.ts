import { z } from 'zod';
import { DOCUMENT_ID_MAX_LENGTH, hasDocumentIdShape } from '@/lib/shared/ids';

export { isDocumentId } from '@/lib/shared/ids';

/** The id rule of lib/shared/ids.ts as a schema, with messages for forms and 400s. */
export const documentIdSchema = z
  .string()
  .min(1, 'Required')
  .max(DOCUMENT_ID_MAX_LENGTH, `At most ${DOCUMENT_ID_MAX_LENGTH} characters`)
  .refine(hasDocumentIdShape, 'Not a valid id');

/** The query of a route under /api/orgs/{orgId}. */
export const orgRouteSchema = z.object({ orgId: documentIdSchema });
/** The query of a route of one object of an organization: /api/orgs/{orgId}/…/{id}. */
export const objectRouteSchema = z.object({ orgId: documentIdSchema, id: documentIdSchema });
