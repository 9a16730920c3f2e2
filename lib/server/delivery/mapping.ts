import type { Conversion, ConversionMapping, Identifier } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { connectorFor } from '@/lib/server/connectors/registry';

/**
 * What a conversion does with an event before its platform sees it: whether it takes the event (its
 * event names), the event as it sends it (its identifiers, its value rule), and why its platform would not
 * take that (the connector's `check`). The worker routes and delivers by these; the front door warns by
 * them (services/ingestRouting.ts), so a 202's warnings and the delivery log's reasons are one judgement.
 */

/** The mapping choice a withheld field belongs to. */
const WITHHELD_IDENTIFIER: Record<string, Identifier> = { phone: 'phone', address: 'address' };

/** Does this conversion take this event? (Its event names, compared without case; none = every event.) */
export function takesEvent(mapping: ConversionMapping, event: Pick<ConversionEvent, 'name'>): boolean {
  if (mapping.events.length === 0) return true;
  const name = event.name.toLowerCase();
  return mapping.events.some((wanted) => wanted.toLowerCase() === name);
}

/** The event as this conversion sends it: only the identifiers it chose, its value rule applied. */
export function mapEvent(mapping: ConversionMapping, event: ConversionEvent): ConversionEvent {
  const allowed = mapping.identifiers;
  const user: ConversionEvent['user'] = {};
  const take = (identifier: Identifier, keys: Array<keyof ConversionEvent['user']>) => {
    if (!allowed.includes(identifier)) return;
    for (const key of keys) if (event.user[key]) user[key] = event.user[key];
  };
  take('email', ['email', 'emailGoogle']);
  take('phone', ['phone', 'phoneE164']);
  take('name', ['firstName', 'lastName']);
  take('address', ['city', 'state', 'postalCode', 'countryCode']);
  take('dateOfBirth', ['dateOfBirth']);
  take('gender', ['gender']);
  take('externalId', ['externalId']);
  // Google's address is the names with the country and postal code: both choices are needed.
  const address = allowed.includes('address') && allowed.includes('name') ? event.address : undefined;
  // What was withheld matters only for the identifiers this conversion sends.
  const withheld = event.withheld?.filter((item) => allowed.includes(WITHHELD_IDENTIFIER[item.field] ?? (item.field as Identifier)));
  const context = allowed.includes('context')
    ? event.context
    : event.context.pageUrl
      ? { actionSource: event.context.actionSource, pageUrl: event.context.pageUrl }
      : { actionSource: event.context.actionSource };
  const rule = mapping.value;
  const mapped: ConversionEvent = {
    ...event,
    value: rule.mode === 'fixed' ? rule.amount : event.value,
    currency: rule.mode === 'fixed' ? rule.currency : event.currency,
    user,
    clickIds: allowed.includes('clickIds') ? event.clickIds : {},
    context,
  };
  delete mapped.address;
  delete mapped.withheld;
  if (address) mapped.address = address;
  if (withheld && withheld.length > 0) mapped.withheld = withheld;
  return mapped;
}

/**
 * Why this conversion would not send this event, in the words the delivery log records ("Website event
 * without the browser's user agent: …"), or null when its platform may take it: the connector's `check`
 * on the event as the conversion maps it, as `deliverBatch` runs it.
 */
export function whyNotSent(conversion: Conversion, event: ConversionEvent, now: Date): string | null {
  const delivery = connectorFor(conversion.destination.platform).deliver;
  return delivery ? delivery.check(mapEvent(conversion.mapping, event), now) : null;
}
