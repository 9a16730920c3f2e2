/**
 * What the sandbox's conversion endpoints received (Meta's Conversions API, Google's Data Manager,
 * Microsoft's offline conversions, Mixpanel's Import API), deduplicated the way each platform deduplicates, and a switch
 * that makes a platform fail transiently for a while, or hang (take requests and never answer, as a platform
 * in an outage does: the caller's own timeout ends them). Tests and the bench count arrivals here by
 * dedup key: an event sent twice is one entry whose `receipts` is 2.
 */
import type { ServerResponse } from 'node:http';
import type { OAuthProvider } from '@/lib/shared/integrations/platforms';

/** Who received it: an OAuth provider's fake (sandbox/<platform>/) or Mixpanel's. */
export type ConversionPlatform = OAuthProvider | 'mixpanel';

export interface ReceivedConversion {
  platform: ConversionPlatform;
  /**
   * The platform's dedup key: Meta pixel + event_name + event_id; Google destination + transactionId;
   * Microsoft goal + click id + time; Mixpanel project + event + distinct_id + time (ms) + $insert_id.
   */
  key: string;
  /** Where it went: pixel id, conversion action id, goal name, or Mixpanel project id. */
  target: string;
  /** The event as the platform received it (hashed identifiers as sent; Mixpanel: its latest copy). */
  event: Record<string, unknown>;
  receivedAt: number;
  /** How many times it arrived; the platform counts it once. */
  receipts: number;
  /** Google: whether it matched a click or a known customer (an unmatched upload is never attributed). */
  attributable?: boolean;
}

export interface Failure {
  /** 'hang': the request is held unanswered until the switch goes off (then the socket is closed). */
  status: 500 | 429 | 503 | 'hang';
  /** Fail until then (ms since epoch)… */
  until: number;
  /** …or this share of requests (0–1) while it lasts. */
  rate: number;
}

export type ConversionLedger = ReturnType<typeof createConversionLedger>;

/** How long a platform remembers a dedup key (Meta: 48 h; the others longer — the sandbox keeps 48 h for all). */
const DEDUP_WINDOW_MS = 48 * 3600 * 1000;

export function createConversionLedger() {
  const received = new Map<string, ReceivedConversion>();
  const failures = new Map<ConversionPlatform, Failure>();
  let requests = 0;
  const calls = new Map<ConversionPlatform, number>();

  /**
   * Records one event; answers whether it was new (false: a duplicate the platform counts once). A
   * duplicate keeps the first copy, or with `keep: 'latest'` the newest (Mixpanel shows the latest
   * ingested copy of an event).
   */
  function record(
    platform: ConversionPlatform,
    key: string,
    target: string,
    event: Record<string, unknown>,
    keep: 'first' | 'latest' = 'first',
    facts: { attributable?: boolean } = {},
  ): boolean {
    const id = `${platform}|${key}`;
    const existing = received.get(id);
    if (existing && Date.now() - existing.receivedAt < DEDUP_WINDOW_MS) {
      existing.receipts += 1;
      if (keep === 'latest') existing.event = event;
      return false;
    }
    received.set(id, { platform, key, target, event, receivedAt: Date.now(), receipts: 1, ...facts });
    return true;
  }

  /** Counts an accepted request (for "calls made = ⌈events / maximum⌉"). */
  function countCall(platform: ConversionPlatform) {
    calls.set(platform, (calls.get(platform) ?? 0) + 1);
  }

  /**
   * Whether this request should fail now (the switch is on for its platform); when it does, the
   * status to answer. A share below 1 fails that fraction of requests, deterministically spread.
   */
  function failing(platform: ConversionPlatform): Failure['status'] | null {
    const failure = failures.get(platform);
    if (!failure) return null;
    if (Date.now() > failure.until) {
      failures.delete(platform);
      return null;
    }
    requests += 1;
    return (requests * failure.rate) % 1 < failure.rate ? failure.status : null;
  }

  function fail(platform: ConversionPlatform, failure: { status?: Failure['status']; seconds?: number; rate?: number }) {
    const seconds = failure.seconds ?? 30;
    failures.set(platform, {
      status: failure.status ?? 500,
      until: Date.now() + seconds * 1000,
      rate: Math.min(1, Math.max(0, failure.rate ?? 1)),
    });
    if (failure.status === 'hang') setTimeout(releaseHung, seconds * 1000).unref?.();
  }

  /** Turns a platform's switch off now (a hang lets go of what it holds). */
  function recover(platform: ConversionPlatform) {
    failures.delete(platform);
    releaseHung();
  }

  function list(platform?: ConversionPlatform): ReceivedConversion[] {
    return [...received.values()].filter((entry) => !platform || entry.platform === platform);
  }

  function reset() {
    received.clear();
    failures.clear();
    calls.clear();
    releaseHung();
  }

  return {
    record,
    countCall,
    failing,
    fail,
    recover,
    /** Requests held unanswered by a hang now. */
    hanging: () => hung.size,
    list,
    calls: (platform: ConversionPlatform) => calls.get(platform) ?? 0,
    reset,
    failures,
  };
}

/** Requests held unanswered by a hang: their sockets close when the hang ends, the ledger recovers or is reset, or after 60 s. */
const hung = new Set<ServerResponse>();

function releaseHung() {
  for (const res of [...hung]) res.destroy();
}

function hold(res: ServerResponse) {
  hung.add(res);
  const timer = setTimeout(() => res.destroy(), 60_000);
  timer.unref?.();
  res.once('close', () => {
    clearTimeout(timer);
    hung.delete(res);
  });
}

/** A transient failure in the platform's own shape (Graph, Google RPC status, Microsoft's, Mixpanel's: sandbox/<platform>/delivery.ts). */
export type FailureAnswer = (res: ServerResponse, status: Exclude<Failure['status'], 'hang'>) => unknown;

/** Answers a switched-on failure: a hang holds the request unanswered, any other status is the platform's `answer`. */
export function answerFailure(res: ServerResponse, status: Failure['status'], answer: FailureAnswer) {
  if (status === 'hang') return hold(res);
  return answer(res, status);
}
