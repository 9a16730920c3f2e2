/**
 * What became of an event, in the four words every page, alert, CSV and reference uses: delivered, not sent,
 * failed, held. Defined here once; a page that shows an outcome takes its label, tone and meaning from here.
 *
 * The stored row statuses (`delivered`, `rejected`, `not_sent`, `failed`, `held`) and the API's field names
 * (`last24h.failed`, `parked.held`…) are a contract and stay as they are: this maps them to what people read.
 * A row the platform refused (`rejected`) and one we could not send (`not_sent`) are the same outcome for the
 * person reading: it will not reach the platform's reports and is not tried again; its reason says why.
 */

export type Outcome = 'delivered' | 'not_sent' | 'failed' | 'held';

/** A delivery row's stored status. */
export type StoredRowStatus = 'delivered' | 'rejected' | 'not_sent' | 'failed' | 'held';

export interface OutcomeWords {
  /** As a badge or a column: "Not sent". */
  label: string;
  /** In a sentence or after a number: "3 not sent". */
  word: string;
  /** How it is shown: good, bad (needs a look), waiting (will go, or can go, again). */
  tone: 'good' | 'bad' | 'waiting';
  /** One line a marketer reads to know what it means. */
  meaning: string;
}

export const OUTCOMES: Record<Outcome, OutcomeWords> = {
  delivered: {
    label: 'Delivered',
    word: 'delivered',
    tone: 'good',
    meaning: 'The platform accepted the event.',
  },
  not_sent: {
    label: 'Not sent',
    word: 'not sent',
    tone: 'bad',
    meaning:
      'The event will not reach the platform: it could not be sent, or the platform refused it. Its reason says why; it is not tried again.',
  },
  failed: {
    label: 'Failed',
    word: 'failed',
    tone: 'waiting',
    meaning: 'The platform could not be reached after several tries. The event is kept: Retry sends it again.',
  },
  held: {
    label: 'Held',
    word: 'held',
    tone: 'waiting',
    meaning: 'The destination needs reconnecting. The event is kept and sent once you reconnect.',
  },
};

/** The order outcomes are listed in: what went, what did not, what waits. */
export const OUTCOME_ORDER: readonly Outcome[] = ['delivered', 'not_sent', 'failed', 'held'];

/** A stored row status as the outcome people read. */
export const outcomeOf = (status: StoredRowStatus): Outcome => (status === 'rejected' ? 'not_sent' : status);

/** "3 delivered · 1 not sent", from counts per stored status; "No events" when all are zero. */
export function outcomeCountsInWords(counts: Partial<Record<StoredRowStatus, number>>): string {
  const byOutcome: Record<Outcome, number> = { delivered: 0, not_sent: 0, failed: 0, held: 0 };
  for (const [status, count] of Object.entries(counts) as Array<[StoredRowStatus, number | undefined]>)
    byOutcome[outcomeOf(status)] += count ?? 0;
  const parts = OUTCOME_ORDER.filter((outcome) => byOutcome[outcome] > 0).map(
    (outcome) => `${byOutcome[outcome]} ${OUTCOMES[outcome].word}`,
  );
  return parts.length ? parts.join(' · ') : 'No events';
}

/**
 * A conversion's counts as the API gives them (`failed`: not sent and failed together; `notSent`, when the
 * hours counted it, the not sent part) split into the outcomes people read.
 */
export function splitUndelivered(counts: { failed: number; notSent?: number }): { notSent: number; failed: number } {
  const notSent = Math.min(counts.notSent ?? 0, counts.failed);
  return { notSent, failed: counts.failed - notSent };
}
