import { NEW_MAPPING, type MappingDraft } from '@/components/conversions/mapping';
import type { WarehouseDraft } from '@/components/conversions/warehouseDraft';
import type { CreateConversionInput } from '@/lib/shared/schemas/conversions';
import { isWarehousePlatform, type Integration } from '@/lib/shared/integrations/platforms';

/** New conversion's draft: what each step fills in, which step holds a field, and the source it makes. */

/** The warehouse draft's helpers: loaded with a warehouse source's defaults, before any draft has a warehouse part. */
type WarehouseHelpers = Pick<typeof import('@/components/conversions/warehouseDraft'), 'changedFields' | 'warehouseSourceOf'>;
let warehouseHelpers: WarehouseHelpers | null = null;

/** Keeps the warehouse helpers once loaded (the source step loads them with a warehouse source's defaults). */
export const rememberWarehouseHelpers = (helpers: WarehouseHelpers) => {
  warehouseHelpers = helpers;
};

/** The fields a warehouse draft's change touched (all of the source until the helpers have loaded). */
export const changedWarehouseFields = (before: WarehouseDraft | null, after: WarehouseDraft) =>
  warehouseHelpers?.changedFields(before, after) ?? ['source'];

export const STEPS = ['Source', 'Destination', 'Mapping', 'Review'] as const;
export type Step = 0 | 1 | 2 | 3;

export interface Draft {
  /** 'app:{id}', 'payments:{id}', or the destination a warehouse read uses: 'bigquery:{id}', 'mixpanel:{id}'. */
  source: string;
  /** What a BigQuery or Mixpanel source reads (null for an app or a payment account). */
  warehouse: WarehouseDraft | null;
  destinationId: string;
  accountId: string;
  targetId: string;
  mapping: MappingDraft;
  /** null: the suggested name (source → target) until the user types one. */
  name: string | null;
}

export const EMPTY: Draft = {
  source: '',
  warehouse: null,
  destinationId: '',
  accountId: '',
  targetId: '',
  mapping: NEW_MAPPING,
  name: null,
};

/** Destinations of a warehouse platform (the catalogue's `conversionSource`) are also read from, with the same login. */
export const isWarehouse = (integration: Integration) => isWarehousePlatform(integration.platform);
export const isWarehouseKey = (source: string) => isWarehousePlatform(source.split(':')[0] ?? '');

/** The error key of each part of the draft ('mapping' covers all of the mapping's). */
export const FIELD_OF: Record<keyof Draft, string> = {
  source: 'source',
  warehouse: 'source',
  destinationId: 'destination.destinationId',
  accountId: 'destination.accountId',
  targetId: 'destination.targetId',
  mapping: 'mapping',
  name: 'name',
};

/** The errors left once these fields (and what is under them) changed. */
export const withoutErrorsOf = (errors: Record<string, string[]>, fields: string[]) =>
  Object.fromEntries(Object.entries(errors).filter(([key]) => !fields.some((field) => key === field || key.startsWith(`${field}.`))));

/** Which step holds a field ('destination.targetId' → Destination); what is not one of the first three is on Review. */
export function stepOf(field: string): Step {
  if (field.startsWith('source')) return 0;
  if (field.startsWith('destination')) return 1;
  if (field.startsWith('mapping')) return 2;
  return 3;
}

export function sourceOf(draft: Draft): CreateConversionInput['source'] {
  if (draft.warehouse) return warehouseHelpers!.warehouseSourceOf(draft.warehouse);
  const [type, id = ''] = draft.source.split(/:(.*)/s);
  return type === 'payments' ? { type: 'payments', paymentId: id } : { type: 'app', appId: id };
}
