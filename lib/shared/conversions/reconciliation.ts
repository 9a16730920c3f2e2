import { addDays, dayIn, instantOf } from '@/lib/shared/connections/windows';
import { countedNote, PLATFORM_LAG_HOURS, SHORT_NAME_OF, type AdPlatform } from '@/lib/shared/integrations/platforms';

/**
 * "Did it count?": a conversion's funnel per day, our side (the hour counters the worker writes) beside
 * what the platform reports it received and attributed. Pure: the server computes with it, pages show it.
 *
 * Days are the platform account's days: a platform reports its account's days (Microsoft's reports, Google's
 * segments.date, Meta's insights), so our UTC hour counters are summed into the account's days to sit beside
 * them. A platform read that reports UTC days says nothing of a time zone and keeps UTC (docs/PRODUCT.md).
 */

/** How many days the funnel shows, and how many the counted share sums. */
export const RECONCILE_DAYS = 30;
export const SHARE_DAYS = 7;

/** The counted share under which a conversion alerts, unless the user set another. */
export const DEFAULT_COUNTED_THRESHOLD = 80;

/** A gap smaller than this share (and one event) is noise, not a finding. */
const GAP_SHARE = 0.05;

/** One day of one conversion, as stored by the reading job and shown on the page. */
export interface ReconcileDay {
  date: string;
  /** Events routed to the conversion (every row of its delivery records). */
  received: number;
  /** Events we tried to send (received − not sent − held). */
  sent: number;
  /** Events the platform's API accepted. */
  accepted: number;
  /** What the platform reports it received (Meta's pixel stats); null where the platform reports none. */
  platformReceived: number | null;
  /** Conversions the platform attributes to the pixel event, conversion action or goal; null when unread. */
  attributed: number | null;
  /** The platform's figures for this day will not change any more (its lag has passed). */
  final: boolean;
  /** Plain sentences, one per gap. */
  notes: string[];
}

export type ReconcileState = 'not_read' | 'read' | 'needs_scope' | 'failed';

/** Where a conversion's reading stands and its counted share over the last SHARE_DAYS final days. */
export interface ReconcileSummary {
  state: ReconcileState;
  message: string | null;
  readAt: string | null;
  /** The IANA zone of the days (the platform account's, as its read named it; 'UTC' for a read that names none); null before a read. */
  timeZone: string | null;
  week: { accepted: number; attributed: number; share: number | null };
}

export interface ConversionReconciliation {
  platform: AdPlatform;
  summary: ReconcileSummary;
  threshold: number;
  days: ReconcileDay[];
}

export interface ReconciliationRow {
  id: string;
  name: string;
  platform: AdPlatform;
  summary: ReconcileSummary;
  threshold: number;
}

export const NOT_READ: ReconcileSummary = {
  state: 'not_read',
  message: null,
  readAt: null,
  timeZone: null,
  week: { accepted: 0, attributed: 0, share: null },
};

/** Meta's insights action type for a pixel event (standard events by name, any other as a custom conversion). */
export function metaActionType(eventName: string): string {
  const standard: Record<string, string> = {
    Purchase: 'purchase',
    Lead: 'lead',
    AddToCart: 'add_to_cart',
    AddPaymentInfo: 'add_payment_info',
    AddToWishlist: 'add_to_wishlist',
    CompleteRegistration: 'complete_registration',
    InitiateCheckout: 'initiate_checkout',
    Search: 'search',
    ViewContent: 'view_content',
  };
  return `offsite_conversion.fb_pixel_${standard[eventName] ?? 'custom'}`;
}

/** The days of the window ending on `now`'s day in `timeZone` (an IANA zone; UTC unless said), oldest first. */
export function windowDays(now: Date, days = RECONCILE_DAYS, timeZone = 'UTC'): string[] {
  const end = dayIn(timeZone, now);
  return Array.from({ length: days }, (_, index) => addDays(end, index - (days - 1)));
}

/**
 * The account's day an hour counter ('YYYY-MM-DDTHH', a UTC hour) falls on. In a zone off UTC by a
 * half or quarter hour the counter's first minutes decide: the hour is not split.
 */
export const dayOfHour = (hour: string, timeZone = 'UTC'): string => dayIn(timeZone, Date.parse(`${hour}:00:00Z`));

/** Whether the platform's figures for `date` (a day of `timeZone`) are final at `now`: its lag after the day's end has passed. */
export function isFinal(platform: AdPlatform, date: string, now: Date, timeZone = 'UTC'): boolean {
  return now.getTime() >= instantOf(addDays(date, 1), '00:00', timeZone) + PLATFORM_LAG_HOURS[platform] * 3_600_000;
}

const percent = (part: number, whole: number) => Math.round((part / whole) * 100);
const gap = (lower: number, upper: number) => upper > 0 && upper - lower >= 1 && (upper - lower) / upper >= GAP_SHARE;

/** "Nov 14" for a YYYY-MM-DD day. */
export const dayLabel = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** The plain explanations of a day's gaps, in the order of the funnel. */
export function explainDay(platform: AdPlatform, day: Omit<ReconcileDay, 'notes'>, today: string): string[] {
  const name = SHORT_NAME_OF[platform];
  const when = day.date === today ? 'today' : dayLabel(day.date);
  const notes: string[] = [];
  if (gap(day.sent, day.received))
    notes.push(`${day.received - day.sent} events were not sent (refused before sending, or held for a reconnect): see the delivery log.`);
  if (gap(day.accepted, day.sent)) notes.push(`${name} refused ${day.sent - day.accepted} of the events we sent: see the delivery log.`);
  if (!day.final) {
    if (day.accepted > 0 || (day.attributed ?? 0) > 0) notes.push(countedNote(platform, 'notFinal', { when }));
    return notes;
  }
  if (day.attributed === null) return notes;
  if (day.platformReceived !== null && gap(day.platformReceived, day.accepted)) {
    notes.push(
      `${name} received ${percent(day.accepted - day.platformReceived, day.accepted)} % fewer than we sent on ${dayLabel(day.date)}: look for a dedup or pixel problem.`,
    );
  }
  const base = day.platformReceived ?? day.accepted;
  if (gap(day.attributed, base)) {
    const missing = percent(base - day.attributed, base);
    notes.push(countedNote(platform, 'attributionGap', { missing, attributed: 100 - missing, day: dayLabel(day.date) }));
  }
  return notes;
}

/** The counted share of the last SHARE_DAYS days (of `timeZone`) whose figures are final: attributed ÷ accepted. */
export function countedShare(days: ReconcileDay[], now: Date, timeZone = 'UTC'): ReconcileSummary['week'] {
  const recent = new Set(windowDays(now, SHARE_DAYS + 1, timeZone));
  let accepted = 0;
  let attributed = 0;
  for (const day of days) {
    if (!recent.has(day.date) || !day.final || day.attributed === null) continue;
    accepted += day.accepted;
    attributed += day.attributed;
  }
  return { accepted, attributed, share: accepted > 0 ? Math.min(1, attributed / accepted) : null };
}
