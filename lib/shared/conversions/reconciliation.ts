import { addDays, dayIn, instantOf } from '@/lib/shared/connections/windows';
import { countedNote, PLATFORM_LAG_HOURS, SHORT_NAME_OF, TARGET_LABEL, type AdPlatform } from '@/lib/shared/integrations/platforms';

/**
 * "Did the platform get what we sent?": a conversion's days, what we sent beside what the platform received of
 * it (the one figure: sent − received is the loss), and what the platform reports itself (its own received count,
 * what it attributed to ads), each with whose events it covers. Pure: the server computes with it, pages show it.
 *
 * Scope: a platform's own figure covers more senders than this conversion (Meta's pixel stats count every server
 * sender of the pixel by event name; its insights the whole ad account; a Google conversion action or a Microsoft
 * goal every upload to it). It is shown with its scope in words and never divided by ours. The one inference
 * drawn from it: a count that covers all of ours and more, yet is lower than what we alone had accepted, proves
 * that at least the difference never arrived.
 *
 * Days are the platform account's days: a platform reports its account's days (Microsoft's reports, Google's
 * segments.date, Meta's insights), so our UTC hour counters are summed into the account's days to sit beside
 * them. A platform read that reports UTC days says nothing of a time zone and keeps UTC (docs/PRODUCT.md).
 */

/** How many days the section shows, and how many the received share sums. */
export const RECONCILE_DAYS = 30;
export const SHARE_DAYS = 7;

/**
 * The received share (received ÷ sent, %) under which a conversion alerts, unless the user set another. Until
 * the counted alert meant loss it compared attributed to accepted (80 % by default); a threshold saved then is
 * read as a received share now (docs/PRODUCT.md §5b).
 */
export const DEFAULT_COUNTED_THRESHOLD = 95;

/** A count the platform reports itself, and whose events it covers, in words said after the count. */
export interface PlatformFigure {
  count: number;
  scope: string;
}

/** One day of one conversion, as stored by the reading job and shown on the page. */
export interface ReconcileDay {
  date: string;
  /** Events we sent: the platform answered them, accepting or refusing (those refused by our checks, held or failed are not sent). */
  sent: number;
  /**
   * Of those, what the platform received: what its API accepted, less what its own count proves never arrived
   * (the day's figures final). sent − received is the loss.
   */
  received: number;
  /** Of the loss, the events its API refused (the delivery log has each one's reason); the rest never arrived. */
  refused: number;
  /** What the platform reports itself, each with its scope; null where it reports none (or nothing was read). */
  platform: { received: PlatformFigure | null; attributed: PlatformFigure | null };
  /** The platform's figures for this day will not change any more (its lag has passed). */
  final: boolean;
  /** Plain sentences: what the loss is made of, and why a day is not final. */
  notes: string[];
}

/** What a day is computed from: our counters and the platform's own figures. */
export interface DayFigures {
  date: string;
  sent: number;
  /** Events the platform's API accepted. */
  accepted: number;
  platform: ReconcileDay['platform'];
  final: boolean;
}

export type ReconcileState = 'not_read' | 'read' | 'needs_scope' | 'failed';

/** Where a conversion's reading stands, and what the platform received of what we sent over the last SHARE_DAYS final days. */
export interface ReconcileSummary {
  state: ReconcileState;
  message: string | null;
  readAt: string | null;
  /** The IANA zone of the days (the platform account's, as its read named it; 'UTC' for a read that names none); null before a read. */
  timeZone: string | null;
  week: { sent: number; received: number; share: number | null };
}

export interface ConversionReconciliation {
  platform: AdPlatform;
  summary: ReconcileSummary;
  threshold: number;
  /** What drives the platform's attribution, in its own words: information, not a loss. */
  attribution: string;
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
  week: { sent: 0, received: 0, share: null },
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

/** "Nov 14" for a YYYY-MM-DD day. */
export const dayLabel = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** Names in a sentence: "Purchase", "Purchase and Lead", "Purchase, Lead and Search". */
export const namesInWords = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

/**
 * Whose events a platform's own figure covers, in its catalogue words (`received` or `attributed`); null when it
 * reports no such figure. `others`: the organization's other conversions sending to the same target.
 */
export function figureScope(
  platform: AdPlatform,
  figure: 'received' | 'attributed',
  { events, target, others = 0 }: { events: readonly string[]; target: string; others?: number },
): string | null {
  const scope = countedNote(platform, figure, { events: namesInWords(events), target });
  if (scope === null || others === 0) return scope;
  const where = TARGET_LABEL[platform].toLowerCase();
  return `${scope}; ${others} other ${others === 1 ? 'conversion' : 'conversions'} of yours ${others === 1 ? 'sends' : 'send'} to this ${where} too`;
}

/**
 * A day as the page shows it: what the platform received of what we sent, and the sentences that explain the
 * loss. The platform's own received count covers every event of ours and maybe others' (CountedRow): when it is
 * lower than what its API accepted of ours alone, at least the difference never arrived; when higher, it says
 * nothing about ours.
 */
export function countDay(platform: AdPlatform, figures: DayFigures, today: string): ReconcileDay {
  const name = SHORT_NAME_OF[platform];
  const refused = Math.max(0, figures.sent - figures.accepted);
  const theirs = figures.platform.received;
  const missing = figures.final && theirs ? Math.max(0, figures.accepted - theirs.count) : 0;
  const notes: string[] = [];
  if (refused > 0) notes.push(`${name} refused ${refused} of the ${figures.sent} events we sent: the delivery log has the reason of each.`);
  if (missing > 0)
    notes.push(
      `At least ${missing} of the events ${name} accepted never arrived: it counted ${theirs!.count} ${theirs!.scope}, fewer than the ${figures.accepted} this conversion sent alone. Look for a deduplication or pixel problem.`,
    );
  if (!figures.final && figures.sent > 0)
    notes.push(countedNote(platform, 'notFinal', { when: figures.date === today ? 'today' : dayLabel(figures.date) })!);
  return {
    date: figures.date,
    sent: figures.sent,
    received: figures.accepted - missing,
    refused,
    platform: figures.platform,
    final: figures.final,
    notes,
  };
}

/** What the platform received of what we sent over the last SHARE_DAYS days (of `timeZone`) whose figures are final. */
export function countedShare(days: ReconcileDay[], now: Date, timeZone = 'UTC'): ReconcileSummary['week'] {
  const recent = new Set(windowDays(now, SHARE_DAYS + 1, timeZone));
  let sent = 0;
  let received = 0;
  for (const day of days) {
    if (!recent.has(day.date) || !day.final) continue;
    sent += day.sent;
    received += day.received;
  }
  return { sent, received, share: sent > 0 ? Math.min(1, received / sent) : null };
}
