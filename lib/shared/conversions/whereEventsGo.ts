import { sourceKeyOf, type Conversion } from '@/lib/shared/conversions/conversion';

/**
 * One model of where a source's events go: its conversions, an app's routings among them (a routing is a
 * conversion made by the app's platform page, `routing`). The app page, the conversion list and the
 * conversion page all read it from the conversions, so they say the same thing.
 */

/** The conversions fed by an app, routings and the others, routings first then by name. */
export function conversionsOfApp<T extends Conversion>(appId: string, conversions: readonly T[]): T[] {
  return conversions
    .filter((conversion) => conversion.source.type === 'app' && conversion.source.appId === appId)
    .sort((a, b) => Number(Boolean(b.routing)) - Number(Boolean(a.routing)) || a.name.localeCompare(b.name));
}

/**
 * The other conversions of the same source that send to the same platform and are not paused: an event both
 * take reaches the platform twice (each counts it, unless the platform deduplicates by event id across them).
 */
export function alsoSendingToPlatform<T extends Conversion>(conversion: Conversion, conversions: readonly T[]): T[] {
  // A warehouse read publishes its own rows only (sourceKeyOf): two reads never send the same event.
  if (conversion.source.type !== 'app' && conversion.source.type !== 'payments') return [];
  const key = sourceKeyOf(conversion.source);
  return conversions.filter(
    (other) =>
      other.id !== conversion.id &&
      other.status !== 'paused' &&
      other.destination.platform === conversion.destination.platform &&
      sourceKeyOf(other.source) === key,
  );
}

/** The sentence under a conversion that another of the same source also sends to its platform (null when none). */
export function alsoSendingInWords(conversion: Conversion, conversions: readonly Conversion[], platformLabel: string): string | null {
  const others = alsoSendingToPlatform(conversion, conversions);
  if (others.length === 0) return null;
  const names = others.map((other) => (other.routing ? `the app’s routing “${other.name}”` : `“${other.name}”`));
  const listed = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
  return `${listed.charAt(0).toUpperCase()}${listed.slice(1)} also ${others.length === 1 ? 'sends' : 'send'} this source’s events to ${platformLabel}: an event both take reaches it twice.`;
}
