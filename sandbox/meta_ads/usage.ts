/**
 * Meta's throttling of the reporting edges, as the sandbox plays it: Business Use Case limits for
 * `ads_insights`. Every answer about an account carries `x-business-use-case-usage` with the calls of the
 * last hour as a percentage of USAGE_CALLS_PER_HOUR (plus what `POST /__sandbox/meta/usage` set, which
 * drains like the calls of a rolling hour). At 100 % calls are refused with code 80000 / subcode 2446079
 * and Meta's message (as seen in public traces), and estimated_time_to_regain_access (minutes) turns
 * positive. An account's failure switch (sandbox/adData.ts) is answered here too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { json, readBody } from '@/sandbox/server';
import { token, type SandboxStore } from '@/sandbox/store';

type Json = Record<string, unknown>;

const USAGE_WINDOW_MS = 3600_000;
/** The calls an account may make in an hour before it is throttled. */
export const USAGE_CALLS_PER_HOUR = 600;

/** An account's usage on the shared store: its header, the check every reporting call passes, and the knob. */
export function createUsage(store: SandboxStore) {
  const usage = new Map<string, { base: number; setAt: number; calls: number[] }>();

  function usageEntry(accountId: string) {
    let entry = usage.get(accountId);
    if (!entry) usage.set(accountId, (entry = { base: 0, setAt: Date.now(), calls: [] }));
    const now = Date.now();
    entry.calls = entry.calls.filter((at) => at > now - USAGE_WINDOW_MS);
    return entry;
  }

  /** The account's ads_insights usage in percent: the calls of the last hour, plus a knob-set level draining over the hour. */
  function percentOf(accountId: string) {
    const entry = usageEntry(accountId);
    const base = Math.max(0, entry.base - ((Date.now() - entry.setAt) / USAGE_WINDOW_MS) * 100);
    return base + (entry.calls.length * 100) / USAGE_CALLS_PER_HOUR;
  }

  /** Minutes until the usage is back under 100 %, or 0 while it is not throttled. */
  function regainMinutes(percent: number) {
    return percent < 100 ? 0 : Math.max(1, Math.ceil((percent - 100 + 1) / (100 / 60)));
  }

  function usageHeader(accountId: string): Record<string, string> {
    const percent = percentOf(accountId);
    const rounded = Math.min(Math.round(percent), 999);
    const entry = {
      type: 'ads_insights',
      call_count: rounded,
      total_cputime: Math.round(rounded * 0.6),
      total_time: Math.round(rounded * 0.8),
      estimated_time_to_regain_access: regainMinutes(percent),
    };
    return { 'x-business-use-case-usage': JSON.stringify({ [accountId]: [entry] }) };
  }

  /**
   * Counts a call against the account, or refuses it (code 80000) once the account is at 100 %;
   * a refused call is not counted, so the window can drain. True when the call may go on.
   */
  function admit(res: ServerResponse, accountId: string): boolean {
    if (percentOf(accountId) >= 100) {
      json(
        res,
        400,
        {
          error: {
            message:
              '(#80000) There have been too many calls from this ad-account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.',
            type: 'OAuthException',
            code: 80000,
            error_subcode: 2446079,
            is_transient: true,
            fbtrace_id: token('A'),
          },
        },
        usageHeader(accountId),
      );
      return false;
    }
    usageEntry(accountId).calls.push(Date.now());
    return true;
  }

  /** The account's failure switch (sandbox/adData.ts), answered as Graph answers such failures. */
  function answeredFailure(res: ServerResponse, accountId: string): boolean {
    const status = store.adData.failureOf(accountId);
    if (status === null) return false;
    const error =
      status === 429
        ? {
            message: '(#80000) There have been too many calls from this ad-account. Wait a bit and try again.',
            type: 'OAuthException',
            code: 80000,
            error_subcode: 2446079,
          }
        : status === 503
          ? { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true }
          : { message: 'An unknown error occurred', type: 'OAuthException', code: 1, is_transient: true };
    const headers: Record<string, string> =
      status === 429
        ? {
            'x-business-use-case-usage': JSON.stringify({
              [accountId]: [
                { type: 'ads_insights', call_count: 100, total_cputime: 60, total_time: 80, estimated_time_to_regain_access: 1 },
              ],
            }),
          }
        : {};
    json(res, status, { error: { ...error, fbtrace_id: token('A') } }, headers);
    return true;
  }

  /**
   * Answers a call to one of the account's reporting edges with its failure switch or its throttling
   * (counting it otherwise), as the insights handler does; true when answered.
   */
  const refused = (res: ServerResponse, accountId: string) => answeredFailure(res, accountId) || !admit(res, accountId);

  /** `POST /__sandbox/meta/usage` {accountId, percent}: sets an account's usage (0 clears it and its counted calls). */
  async function setUsage(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    let fields: Json = {};
    try {
      fields = (req.headers['content-type'] ?? '').includes('json')
        ? (JSON.parse(raw || '{}') as Json)
        : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      fields = {};
    }
    const accountId = String(fields.accountId ?? '').replace(/^act_/, '');
    const percent = Number(fields.percent);
    if (!accountId || !Number.isFinite(percent) || percent < 0)
      return json(res, 400, { error: 'Send {accountId, percent} with percent ≥ 0.' });
    usage.set(accountId, { base: percent, setAt: Date.now(), calls: [] });
    return json(res, 200, { accountId, percent });
  }

  return { usageHeader, refused, setUsage };
}
