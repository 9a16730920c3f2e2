import type { ConversionEvent } from '@/lib/shared/conversions/event';
import type { ConversionPlatform, ConversionSource, Identifier } from '@/lib/shared/conversions/conversion';
import { MATCH_KEY_LABELS, MATCH_KEYS, matchKeysOf, matchKeysTakenBy, type MatchKey } from '@/lib/shared/conversions/matchKeys';

/**
 * Match quality as we see it: of the events a conversion sent (or decided not to send), how many
 * carried each match key in the form its platform takes. The worker counts them into the hour
 * documents it already writes (`match.*`, lib/server/repos/conversions.ts); the conversion page
 * shows the last day and week, and what would raise each share.
 */

export interface MatchCounts {
  events: number;
  keys: Record<MatchKey, number>;
}

export const emptyMatchCounts = (): MatchCounts => ({
  events: 0,
  keys: Object.fromEntries(MATCH_KEYS.map((key) => [key, 0])) as Record<MatchKey, number>,
});

/** Counts the match keys of events as `platform` takes them (`keysOf` is matchKeysOf; a test may give its own). */
export function countMatchKeys(
  events: ConversionEvent[],
  platform: ConversionPlatform,
  keysOf: (event: ConversionEvent, platform: ConversionPlatform) => MatchKey[] = matchKeysOf,
): MatchCounts {
  const counts = emptyMatchCounts();
  for (const event of events) {
    counts.events += 1;
    for (const key of new Set(keysOf(event, platform))) if (key in counts.keys) counts.keys[key] += 1;
  }
  return counts;
}

export function addMatchCounts(total: MatchCounts, more: { events?: number; keys?: Partial<Record<MatchKey, number>> }): MatchCounts {
  total.events += more.events ?? 0;
  for (const key of MATCH_KEYS) total.keys[key] += more.keys?.[key] ?? 0;
  return total;
}

/** What an event lacking the key is said to have none of ("42 % of events have no phone"). */
const MISSING: Record<MatchKey, string> = {
  email: 'no email',
  phone: 'no phone',
  address: 'no full name and address',
  clickId: 'no click id',
  ipUserAgent: 'no IP address and user agent',
  consent: 'no consent',
};

/** The conversion's mapping choice that sends each key (consent travels with every event). */
const IDENTIFIER_OF: Partial<Record<MatchKey, Identifier>> = {
  email: 'email',
  phone: 'phone',
  address: 'name',
  clickId: 'clickIds',
  ipUserAgent: 'context',
};

/** What the customer can do about a missing key, by where the events come from. */
function remedy(key: MatchKey, source: ConversionSource['type']): string {
  if (source === 'payments') {
    const atCheckout: Record<MatchKey, string> = {
      email: 'collect the email at checkout (Stripe keeps it on the charge)',
      phone: 'collect the phone number at checkout',
      address: 'collect the billing name and address at checkout',
      clickId: 'payments carry no ad click; send the purchase from your website or server with its click id',
      ipUserAgent: 'payments carry no browser; send the purchase from your website or server',
      consent: "set the conversion's default consent",
    };
    return atCheckout[key];
  }
  if (source !== 'app') {
    const column: Record<MatchKey, string> = {
      email: 'map the email column',
      phone: 'map the phone column',
      address: 'map the first name, last name, postal code and country columns',
      clickId: 'map the gclid, fbclid or msclkid column',
      ipUserAgent: 'map the IP address and user agent columns',
      consent: "set the conversion's default consent",
    };
    return column[key];
  }
  const website: Record<MatchKey, string> = {
    email: "add the form's email field (or name it in the app's custom fields)",
    phone: "add the form's phone field (or name it in the app's custom fields)",
    address: "add the form's first name, last name, postal code and country fields (or set the app's default country)",
    clickId: 'keep the snippet on every landing page, so the gclid, fbclid, msclkid, li_fat_id or ttclid of the ad click is remembered',
    ipUserAgent: 'post through the snippet, which sends the visitor’s address and browser, or send ip and userAgent',
    consent: "use Google consent mode on the site (the snippet reads it) or set the app's default consent",
  };
  return website[key];
}

export interface Advice {
  key: MatchKey;
  /** Share of events lacking the key, whole percent. */
  missingPercent: number;
  text: string;
}

/** Below this share carrying a key, the page says what would raise it. */
export const ADVICE_BELOW = 0.9;

/**
 * What would raise the shares, worst first: "42 % of events have no phone; add the form's phone
 * field". A key the conversion's mapping leaves out is said so first: ticking it is the fix.
 */
export function qualityAdvice(
  counts: MatchCounts,
  platform: ConversionPlatform,
  source: ConversionSource['type'],
  identifiers: readonly Identifier[],
): Advice[] {
  if (counts.events === 0) return [];
  const advice: Advice[] = [];
  for (const key of matchKeysTakenBy(platform)) {
    const share = counts.keys[key] / counts.events;
    if (share >= ADVICE_BELOW) continue;
    const missingPercent = Math.round((1 - share) * 100);
    const identifier = IDENTIFIER_OF[key];
    const fix =
      identifier && !identifiers.includes(identifier)
        ? `this conversion does not send it: tick “${MATCH_KEY_LABELS[key]}” in its mapping`
        : remedy(key, source);
    advice.push({ key, missingPercent, text: `${missingPercent} % of events have ${MISSING[key]}; ${fix}.` });
  }
  return advice.sort((a, b) => b.missingPercent - a.missingPercent);
}

/** What the platform itself reports about the quality of what it received, beside our counts. */
export type PlatformMeasure =
  | {
      status: 'reported';
      /**
       * A score per event name of the target (Meta's Event Match Quality: out of 10, with key coverage in %), for
       * every sender of the target together; the API answers this conversion's event names only.
       */
      kind: 'event_scores';
      events: Array<{
        eventName: string;
        score: number | null;
        /** Each key's share of the events, `label` in words ("Email", "IP address"). */
        keys: Array<{ identifier: string; label: string; percentage: number }>;
        /** The platform's diagnostics: its own name and advice, and `text`, what it means in a marketer's words. */
        diagnostics: Array<{ name: string; solution: string | null; percentage: number | null; text: string }>;
      }>;
    }
  | {
      status: 'reported';
      /** The platform's diagnostics of the last request we sent (Google's Data Manager requestStatus:retrieve). */
      kind: 'request_diagnostics';
      requestId: string;
      sentAt: string | null;
      requestStatus: string;
      records: number | null;
      errors: Array<{ reason: string; records: number }>;
      warnings: Array<{ reason: string; records: number }>;
    }
  /** The platform has nothing yet (no score for the pixel, no request sent), or has no such measure. */
  | { status: 'not_reported'; message: string }
  /** Asking failed (a dead login, the platform down): why, in words. */
  | { status: 'unavailable'; message: string };

export interface ConversionQuality {
  platform: ConversionPlatform;
  /** The keys shown for this platform (none for a warehouse or analytics destination). */
  keys: MatchKey[];
  day: MatchCounts;
  week: MatchCounts;
  advice: Advice[];
  platformMeasure: PlatformMeasure;
  /** When the platform was asked for its figure (ISO; it is kept and asked again after a cooldown), null when not asked. */
  platformMeasureReadAt: string | null;
}
