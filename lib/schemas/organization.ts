import { z } from 'zod';

/** Firestore document ids: no slashes, not `.` or `..`, at most 1500 bytes (we keep it shorter). */
export const documentIdSchema = z
  .string()
  .trim()
  .min(1, 'Required')
  .max(128, 'Too long')
  .regex(/^[^/]+$/, 'Must not contain a slash')
  .refine((id) => id !== '.' && id !== '..', 'Not a valid id');

export const organizationDataQuerySchema = z.object({
  documentId: documentIdSchema,
  type: z.enum(['organization']),
});

export type SubscriptionStatus = 'active' | 'trialing' | 'past_due' | 'canceled' | 'incomplete' | 'unpaid';

/** The organization document as the browser sees it (SPEC.md §3). */
export interface OrganizationDocument {
  organization_id: string;
  name: string;
  company_name: string;
  logo: string | null;
  company_logo: string | null;
  subscription: {
    status: SubscriptionStatus;
    plan: string | null;
    current_period_end: string | null;
  } | null;
}
