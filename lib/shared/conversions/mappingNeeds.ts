import {
  COLUMN_FIELD_LABELS,
  IDENTIFIER_LABELS,
  isWarehouseSource,
  type ColumnField,
  type ConversionMapping,
  type ConversionSource,
  type Identifier,
} from '@/lib/shared/conversions/conversion';

/**
 * What a destination needs of a conversion's mapping before any event can reach it, declared by its
 * connector next to its `check` (the per-event rule): a save that could never deliver is refused.
 */

/**
 * One way a mapping gives the platform something to match by: every one of `identifiers` is sent,
 * and, for a warehouse source (BigQuery, Mixpanel), at least one of `columns` is mapped. Without
 * `columns` no column is needed (the source's default country may fill one); `[]`: no warehouse row
 * carries it (IP address and user agent).
 */
export interface MappingWay {
  identifiers: readonly Identifier[];
  columns?: readonly ColumnField[];
}

/** At least one of the ways; `why` says in a few words what the platform matches by. */
export interface MappingNeeds {
  anyOf: readonly MappingWay[];
  why: string;
}

const words = (items: string[]) => (items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);
const identifiersInWords = (way: MappingWay) => way.identifiers.map((identifier) => IDENTIFIER_LABELS[identifier]).join(' with ');

/**
 * The field errors of a mapping (with its source) that can deliver nothing to the destination, keyed
 * as the create and update bodies are ('mapping.identifiers', 'source.columns.msclkid'); empty when
 * it can. Only what the platform certainly cannot use is refused.
 */
export function unmetMappingNeeds(
  needs: MappingNeeds | undefined,
  platformLabel: string,
  mapping: Pick<ConversionMapping, 'identifiers'>,
  source: ConversionSource,
): Record<string, string[]> {
  if (!needs) return {};
  const sent = needs.anyOf.filter((way) => way.identifiers.every((identifier) => mapping.identifiers.includes(identifier)));
  if (sent.length === 0) {
    const ways = words(needs.anyOf.map(identifiersInWords));
    return { 'mapping.identifiers': [`${platformLabel} needs ${ways}: ${needs.why}. Send at least one.`] };
  }
  if (!isWarehouseSource(source)) return {};
  const mapped = (field: ColumnField) => Boolean(source.columns[field]);
  if (sent.some((way) => !way.columns || way.columns.some(mapped))) return {};
  const columns = [...new Set(sent.flatMap((way) => way.columns ?? []))];
  if (columns.length === 0) {
    const ways = words(needs.anyOf.filter((way) => way.columns?.length !== 0).map(identifiersInWords));
    return { 'mapping.identifiers': [`A warehouse row gives ${platformLabel} none of what it needs (${ways}): ${needs.why}. Send one.`] };
  }
  const message = `${platformLabel} needs a column for ${words(columns.map((field) => COLUMN_FIELD_LABELS[field]))}: ${needs.why}. Map one.`;
  return { [`source.columns.${columns[0]}`]: [message] };
}
