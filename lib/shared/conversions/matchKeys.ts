import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { Platform } from '@/lib/shared/integrations/platforms';

/**
 * The kinds of identifier a platform matches a conversion by, as the match-quality section counts them.
 */
export type MatchKey = 'email' | 'phone' | 'address' | 'clickId' | 'ipUserAgent' | 'consent';

export const MATCH_KEYS: MatchKey[] = ['email', 'phone', 'address', 'clickId', 'ipUserAgent', 'consent'];

/** Which match keys this event carries in the form the platform takes (after the conversion's mapping). */
export function matchKeysOf(event: ConversionEvent, platform: Platform): MatchKey[] {
  void event;
  void platform;
  return [];
}
