import { z } from 'zod';
import { documentIdSchema } from '@/lib/shared/schemas/ids';

export { documentIdSchema };

export const organizationDataQuerySchema = z.object({
  documentId: documentIdSchema,
  type: z.enum(['organization', 'sources', 'destinations', 'payments', 'apps']),
});

export type SubscriptionStatus =
  'active' | 'trialing' | 'past_due' | 'canceled' | 'incomplete' | 'incomplete_expired' | 'unpaid' | 'paused';

/** The organization document as the browser sees it (docs/PRODUCT.md §4). */
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
    past_due_since: string | null;
  } | null;
  /** Whether the organization has a Stripe customer (so a billing portal can open). */
  has_billing_account: boolean;
}

const LOGO_MAX_BYTES = 256 * 1024;
const DATA_URL = /^data:image\/(png|jpeg|webp);base64,([A-Za-z0-9+/]+={0,2})$/;

/** A logo is an http(s) image URL or an inline PNG/JPEG/WebP of at most 256 kB; never SVG (it can carry script). */
export const logoSchema = z
  .string()
  .trim()
  .max(Math.ceil((LOGO_MAX_BYTES * 4) / 3) + 64, 'The logo must be at most 256 kB')
  .refine((value) => {
    const inline = DATA_URL.exec(value);
    if (inline) return Math.floor((inline[2]!.length * 3) / 4) <= LOGO_MAX_BYTES;
    try {
      const url = new URL(value);
      return (url.protocol === 'https:' || url.protocol === 'http:') && !url.pathname.toLowerCase().endsWith('.svg');
    } catch {
      return false;
    }
  }, 'Use a PNG, JPEG or WebP image of at most 256 kB, or an image URL (no SVG)');

const companyNameSchema = z.string().trim().min(1, 'Enter your organization name').max(100, 'At most 100 characters');

export const createOrganizationSchema = z.object({
  companyName: companyNameSchema,
  userId: documentIdSchema,
  isDefault: z.boolean().default(true),
  company_logo: logoSchema.nullish(),
});

export const organizationProfileSchema = z.object({
  companyName: companyNameSchema,
  company_logo: logoSchema.nullable(),
});

export const organizationIdsQuerySchema = z.object({
  userId: documentIdSchema,
  superadmin: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  search: z.string().trim().max(100).optional(),
  cursor: z.string().max(500).optional(),
});

/** An entry of the organization list (server field names, docs/PRODUCT.md §4). */
export interface OrganizationListEntry {
  organization_id: string;
  company_name: string;
  company_logo: string | null;
  connections_count: number;
}

export type CreateOrganizationInput = z.infer<typeof createOrganizationSchema>;
