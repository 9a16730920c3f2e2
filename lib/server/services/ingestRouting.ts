import type { Conversion } from '@/lib/shared/conversions/conversion';
import type { ConversionEvent } from '@/lib/shared/conversions/event';
import { PLATFORM_LABELS } from '@/lib/shared/integrations/platforms';
import type { NotSentWarning } from '@/lib/shared/schemas/submissions';
import { takesEvent, whyNotSent } from '@/lib/server/delivery/mapping';
import { conversionsOfSource } from '@/lib/server/repos/conversions';

/**
 * What the front door knows of where a source's events go: its active conversions, kept a little while per
 * instance, so that a 202 can say which of them will not send an event (and why) without a read per request.
 * The judgement is the delivery's own (delivery/mapping.ts): the warning and the log's row say the same.
 */

/** How long an instance trusts what it read: as long as the worker routes by its own read (router.ts). */
export const ROUTING_TTL_MS = 5_000;
const MAX_CACHED = 10_000;
const routing = new Map<string, { conversions: Promise<Conversion[]>; until: number }>();

/**
 * The active conversions of a source ("app:{id}"), as the worker routes to them, oldest first: read once per ROUTING_TTL_MS
 * per instance; requests that miss the cache together share the read, and a failed read is not kept.
 */
export function activeConversionsOf(orgId: string, source: string): Promise<Conversion[]> {
  const key = `${orgId}|${source}`;
  const cached = routing.get(key);
  if (cached && cached.until > Date.now()) return cached.conversions;
  // In the order they were made: an answer's warnings come in the same order every time.
  const conversions = conversionsOfSource(orgId, source).then((list) =>
    list.filter((conversion) => conversion.status === 'active').sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
  );
  if (routing.size >= MAX_CACHED) routing.clear();
  routing.set(key, { conversions, until: Date.now() + ROUTING_TTL_MS });
  conversions.catch(() => routing.delete(key));
  return conversions;
}

/** An organization's conversions changed: this instance reads them again at its next request (the others within ROUTING_TTL_MS). */
export function forgetRouting(orgId: string): void {
  for (const key of routing.keys()) if (key.startsWith(`${orgId}|`)) routing.delete(key);
}

/** The conversions that take this event but will not send it, each with the delivery log's reason. */
export function notSentWarnings(conversions: Conversion[], event: ConversionEvent, now: Date): NotSentWarning[] {
  const warnings: NotSentWarning[] = [];
  for (const conversion of conversions) {
    if (!takesEvent(conversion.mapping, event)) continue;
    const reason = whyNotSent(conversion, event, now);
    if (!reason) continue;
    const platform = conversion.destination.platform;
    warnings.push({
      conversion: { id: conversion.id, name: conversion.name },
      platform,
      reason,
      message: `Accepted, but not sent to ${PLATFORM_LABELS[platform]}: ${reason}`,
    });
  }
  return warnings;
}
