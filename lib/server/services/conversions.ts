import { forgetAlerts } from '@/lib/server/alerts';
import { entitlementsOf, PLAN_ENTITLEMENTS } from '@/lib/shared/billing/entitlements';
import {
  isWarehouseSource,
  sourceKeyOf,
  type WarehouseSource,
  type Conversion,
  type DeliveryCounts,
  type DeliveryHour,
  type ConversionMapping,
  type ConversionPlatform,
  type ConversionSource,
  type DeliveryRowDetail,
} from '@/lib/shared/conversions/conversion';
import { unmetMappingNeeds } from '@/lib/shared/conversions/mappingNeeds';
import { addDays, instantOf } from '@/lib/shared/connections/windows';
import type { CreateConversionInput, UpdateConversionInput } from '@/lib/shared/schemas/conversions';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import {
  AD_PLATFORMS_IN_WORDS,
  isAdPlatform,
  PLATFORM_LABELS,
  takesTestEventCode,
  type Integration,
} from '@/lib/shared/integrations/platforms';
import { connectorFor, rowSourceOf } from '@/lib/server/connectors/registry';
import { deliverBatch } from '@/lib/server/delivery/deliver';
import { hidePersonalData } from '@/lib/server/delivery/personalData';
import { sha256Hex } from '@/lib/server/sha256';
import { DomainError, invalidFields } from '@/lib/server/errors';
import { publishConversions } from '@/lib/server/queue/pubsub';
import { getApp } from '@/lib/server/repos/apps';
import { noteReveal, type RevealNote } from '@/lib/server/repos/audit';
import * as repo from '@/lib/server/repos/conversions';
import * as parkedEvents from '@/lib/server/repos/parkedEvents';
import * as hourTallies from '@/lib/server/repos/hourTallies';
import * as deliveryLog from '@/lib/server/repos/deliveryLog';
import { countedTimeZone } from '@/lib/server/repos/reconciliation';
import { getIntegration, listIntegrations } from '@/lib/server/repos/integrations';
import { getPayment } from '@/lib/server/repos/payments';
import { targetsOf } from '@/lib/server/services/integrations';
import { forgetRouting } from '@/lib/server/services/ingestRouting';
import { checkWarehouseSource } from '@/lib/server/services/warehouseSources';

/** Conversions beyond storage: the plan allows them, the source and target exist, replays and test events. */

/** Refuses (plan_limit) when the organization's plan has no conversions, naming the plans that do. */
export function assertConversionsIncluded(plan: unknown): void {
  if (entitlementsOf(plan).conversions) return;
  const plans = PLAN_ENTITLEMENTS.filter((candidate) => candidate.conversions).map((candidate) => candidate.name);
  throw new DomainError(
    'plan_limit',
    `Conversions are included in the ${plans.join(' and ')} plans. Upgrade to send conversions to the ad platforms.`,
  );
}

export async function createConversion(orgId: string, plan: unknown, uid: string, input: CreateConversionInput): Promise<Conversion> {
  assertConversionsIncluded(plan);
  if (input.source.type === 'app') await getApp(orgId, input.source.appId);
  else if (input.source.type === 'payments') await getPayment(orgId, input.source.paymentId);
  else await checkWarehouseSource(orgId, plan, input.source);
  const destination = await getIntegration(orgId, 'destination', input.destination.destinationId);
  if (!isAdPlatform(destination.platform))
    throw invalidFields({ 'destination.destinationId': [`Pick a ${AD_PLATFORMS_IN_WORDS} destination`] });
  assertMappingDelivers(destination.platform, input.mapping, input.source);
  const targets = await targetsOf(orgId, destination.id, input.destination.accountId);
  const target = targets.find((candidate) => candidate.id === input.destination.targetId);
  if (!target)
    throw invalidFields({ 'destination.targetId': [`Pick one of the account's ${PLATFORM_LABELS[destination.platform]} targets`] });
  if (!isWarehouseSource(input.source)) {
    await assertNoTwin(orgId, sourceKeyOf(input.source), { ...input.destination, targetName: target.name }, input.mapping.events);
  }
  const created = await repo.createConversion(orgId, {
    name: input.name,
    source: input.source,
    destination: {
      destinationId: destination.id,
      platform: destination.platform,
      accountId: input.destination.accountId,
      targetId: target.id,
      targetName: target.name,
    },
    mapping: input.mapping,
    uid,
  });
  forgetRouting(orgId);
  return created;
}

/**
 * One conversion per source and destination target for any one event: a second conversion of an app or
 * payment account to the same pixel / conversion action / goal taking the same events (every event, when
 * either lists none) would send and count each of them twice. Refused (conflict, `duplicate_target`)
 * naming the one that already sends there, an app's routing included; `exceptId` is the one being saved.
 */
export async function assertNoTwin(
  orgId: string,
  sourceKey: string,
  destination: { destinationId: string; accountId: string; targetId: string; targetName: string },
  events: string[],
  exceptId?: string,
): Promise<void> {
  const existing = await repo.conversionsToTarget(orgId, sourceKey, destination);
  const overlaps = (other: string[]) => events.length === 0 || other.length === 0 || events.some((name) => other.includes(name));
  const twin = existing.find((conversion) => conversion.id !== exceptId && overlaps(conversion.events));
  if (!twin) return;
  const where = twin.routing ? 'the app’s routing page' : 'its configuration page';
  const message = `"${twin.name}" already sends these events to ${destination.targetName}: a second conversion would send and count each of them twice. Change it on ${where}, pick another target, or list events it does not take.`;
  // Under the target too, so the wizard goes back to where the choice is made.
  throw new DomainError('conflict', message, { reason: 'duplicate_target', fieldErrors: { 'destination.targetId': [message] } });
}

/**
 * What a warehouse read covers (its connector says: `RowSource.coverage`): when it changes, the read
 * starts over (and rows already sent are read again). An edit of anything else (a query's comments or
 * layout, the byte limit, the mapping, the schedule) keeps the cursor.
 */
const readKey = (source: WarehouseSource) => JSON.stringify(rowSourceOf(source.type).coverage(source));

/**
 * Refuses (400, naming the field) a mapping from which the destination's connector could send nothing:
 * its declared needs (`Delivery.needs`), e.g. Microsoft's click id.
 */
function assertMappingDelivers(platform: ConversionPlatform, mapping: Pick<ConversionMapping, 'identifiers'>, source: ConversionSource) {
  const unmet = unmetMappingNeeds(connectorFor(platform).deliver?.needs, PLATFORM_LABELS[platform], mapping, source);
  if (Object.keys(unmet).length > 0) throw invalidFields(unmet);
}

/** Saves a conversion's changes; the front door of this instance reads where the source's events go again at once. */
export async function updateConversion(orgId: string, plan: unknown, id: string, changes: UpdateConversionInput): Promise<Conversion> {
  const updated = await saveChanges(orgId, plan, id, changes);
  forgetRouting(orgId);
  return updated;
}

/** The checks of an edit (plan, kind of source, mapping, twins, the warehouse source), then the save. */
async function saveChanges(orgId: string, plan: unknown, id: string, changes: UpdateConversionInput): Promise<Conversion> {
  if (changes.status === 'active') assertConversionsIncluded(plan);
  if (!changes.mapping && !changes.source) return repo.updateConversion(orgId, id, changes);
  const stored = await repo.getConversion(orgId, id);
  // A conversion keeps its kind of source: an app's stays an app's, a BigQuery read stays one.
  if (changes.source && (stored.source.type !== changes.source.type || !isWarehouseSource(stored.source))) {
    throw invalidFields({ 'source.type': ['A conversion keeps its kind of source. Create a new conversion to read from elsewhere.'] });
  }
  assertMappingDelivers(stored.destination.platform, changes.mapping ?? stored.mapping, changes.source ?? stored.source);
  if (changes.mapping && !isWarehouseSource(stored.source))
    await assertNoTwin(orgId, sourceKeyOf(stored.source), stored.destination, changes.mapping.events, id);
  if (!changes.source || !isWarehouseSource(stored.source)) return repo.updateConversion(orgId, id, changes);
  await checkWarehouseSource(orgId, plan, changes.source);
  return repo.updateConversion(orgId, id, changes, { restartRead: readKey(stored.source) !== readKey(changes.source) });
}

/** A conversion as the pages show it: its destination's state decides "needs reconnecting". */
function withLiveStatus(conversion: Conversion, destination: Integration | null | undefined): Conversion {
  if (destination?.status !== 'needs_reauth') return conversion;
  return {
    ...conversion,
    status: 'needs_reauth',
    statusReason: `${PLATFORM_LABELS[destination.platform]} has disconnected this destination. Reconnect it: events are kept and sent after you do.`,
  };
}

const destinationOf = (orgId: string, conversion: Conversion) =>
  getIntegration(orgId, 'destination', conversion.destination.destinationId).catch(() => null);

const sum = (hours: DeliveryHour[]): DeliveryCounts =>
  hours.reduce(
    (total, hour) => ({
      delivered: total.delivered + hour.delivered,
      failed: total.failed + hour.failed,
      notSent: (total.notSent ?? 0) + (hour.notSent ?? 0),
    }),
    { delivered: 0, failed: 0, notSent: 0 },
  );

/** Every conversion with its live status and its last 24 hours (the destinations read once, not per conversion). */
export async function listConversions(orgId: string): Promise<Array<Conversion & { last24h: DeliveryCounts }>> {
  const since = new Date(Date.now() - 24 * 3600 * 1000);
  const [conversions, destinations] = await Promise.all([repo.listConversions(orgId), listIntegrations(orgId, 'destination')]);
  const byId = new Map(destinations.map((destination) => [destination.id, destination]));
  return Promise.all(
    conversions.map(async (conversion) => ({
      ...withLiveStatus(conversion, byId.get(conversion.destination.destinationId)),
      last24h: sum(await hourTallies.deliveryHours(orgId, conversion.id, since)),
    })),
  );
}

/** One conversion, its hourly counts for the chart (48 h), and its parked events by reason (counters on the conversion). */
export async function conversionDetail(orgId: string, id: string) {
  const stored = await repo.getConversion(orgId, id);
  const [destination, hours] = await Promise.all([
    destinationOf(orgId, stored),
    hourTallies.deliveryHours(orgId, id, new Date(Date.now() - 48 * 3600 * 1000)),
  ]);
  const conversion = withLiveStatus(stored, destination);
  return {
    conversion,
    hours,
    parked: conversion.parked,
    last24h: sum(hours.filter((hour) => hour.hour >= new Date(Date.now() - 24 * 3600 * 1000).toISOString().slice(0, 13))),
  };
}

/** Deletes a conversion with its delivery log, and the alerts about it. */
export async function deleteConversion(orgId: string, id: string): Promise<void> {
  await repo.deleteConversion(orgId, id);
  forgetRouting(orgId);
  await forgetAlerts(orgId, { type: 'conversion', id });
}

/** The conversion's delivery log: the latest platform calls, or those holding one event. */
export async function listDeliveries(orgId: string, id: string, options: { eventId?: string; limit?: number; day?: string }) {
  await repo.getConversion(orgId, id);
  // A day is one of the counted days (a gap there links here): of the zone the reading job named, the ad account's.
  const day = options.day ? { date: options.day, timeZone: await countedTimeZone(orgId, id) } : undefined;
  const between = day
    ? { from: new Date(instantOf(day.date, '00:00', day.timeZone)), to: new Date(instantOf(addDays(day.date, 1), '00:00', day.timeZone)) }
    : undefined;
  const deliveries = await deliveryLog.listDeliveries(orgId, id, { eventId: options.eventId, limit: options.limit, between });
  // An event no delivery holds may have been left out by the conversion's event-name filter: say so.
  const filtered = options.eventId && deliveries.length === 0 ? await deliveryLog.findFiltered(orgId, id, options.eventId) : null;
  return { deliveries, ...(filtered ? { filtered } : {}), ...(day ? { day } : {}) };
}

/**
 * One row of a delivery record opened: what was sent for it (hashed, as on the wire) and what the platform
 * answered, the visitor's IP address and browser hidden (`hidden` names them).
 */
export async function deliveryRow(orgId: string, id: string, deliveryId: string, eventId: string): Promise<DeliveryRowDetail> {
  await repo.getConversion(orgId, id);
  const detail = await deliveryLog.deliveryRow(orgId, id, deliveryId, eventId);
  const { value: exchange, hidden } = hidePersonalData(detail.exchange);
  return { ...detail, exchange, hidden };
}

/** The row with its personal data in clear, for an owner or admin; the reveal is noted first (who, what, when). */
export async function revealDeliveryRow(
  orgId: string,
  id: string,
  deliveryId: string,
  eventId: string,
  by: RevealNote['by'],
): Promise<DeliveryRowDetail> {
  await repo.getConversion(orgId, id);
  const detail = await deliveryLog.deliveryRow(orgId, id, deliveryId, eventId);
  const { hidden: fields } = hidePersonalData(detail.exchange);
  if (fields.length > 0) await noteReveal(orgId, { by, conversionId: id, deliveryId, eventId, fields });
  return { ...detail, hidden: [] };
}

/** Publishes a conversion's parked events again, for it alone (Retry, or after Reconnect). */
export async function retryParked(orgId: string, id: string, reason: parkedEvents.ParkReason): Promise<number> {
  const conversion = await repo.getConversion(orgId, id);
  const source = sourceKeyOf(conversion.source);
  return parkedEvents.retryParked(orgId, id, reason, async (events) => {
    await publishConversions(events, { org: orgId, source, conversion: id, replay: 'parked' });
  });
}

/** After a destination is reconnected: its conversions' held events go out again. */
export async function releaseHeld(orgId: string, destinationId: string): Promise<void> {
  const conversions = await repo.conversionsOfDestination(orgId, destinationId);
  await Promise.all(conversions.map((conversion) => retryParked(orgId, conversion.id, 'held')));
}

const TEST_EMAIL = 'test@signalbridge.example';

/**
 * Sends one made-up event through the conversion's mapping, now, and logs it as a test: Meta
 * receives it with a test event code (it shows under Test events, not in reports), Google validates
 * it without ingesting it. The answer is the row's outcome. A Meta conversion may be given the test event code
 * Events Manager shows (the event then appears in its Test events tool); other platforms have no such code.
 */
export async function sendTestEvent(orgId: string, id: string, testEventCode?: string) {
  const stored = await repo.getConversion(orgId, id);
  if (testEventCode && !takesTestEventCode(stored.destination.platform))
    throw invalidFields({ testEventCode: [`${PLATFORM_LABELS[stored.destination.platform]} takes no test event code`] });
  const conversion = withLiveStatus(stored, await destinationOf(orgId, stored));
  if (conversion.status === 'needs_reauth')
    throw new DomainError('needs_reauth', conversion.statusReason ?? 'Reconnect the destination first.');
  const now = Math.floor(Date.now() / 1000);
  const event: ConversionEvent = {
    id: `test_${now}_${Math.random().toString(36).slice(2, 8)}`,
    name: conversion.mapping.events[0] ?? 'Test Event',
    time: now,
    value: 1,
    currency: 'USD',
    // Each platform's form of the phone (docs/MATCH_KEYS.md): Meta's digits, E.164 with its + for Google and Microsoft.
    user: { email: sha256Hex(TEST_EMAIL), phone: sha256Hex('15555550100'), phoneE164: sha256Hex('+15555550100') },
    clickIds: { gclid: 'TeSt-gclid-signalbridge', msclkid: '0123456789abcdef0123456789abcdef', fbp: `fb.1.${now * 1000}.1234567890` },
    context: {
      actionSource: 'website',
      pageUrl: 'https://signalbridge.example/test',
      ip: '203.0.113.7',
      userAgent: 'SignalBridge test event',
    },
    maskedEmail: 't***@signalbridge.example',
  };
  const { rows } = await deliverBatch(orgId, conversion, [event], { test: true, testCode: testEventCode ?? 'TEST_SIGNALBRIDGE' });
  return { row: rows[0]! };
}
