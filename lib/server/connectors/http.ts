import { PlatformError } from '@/lib/server/connectors/errors';
import type { ConnectorId } from '@/lib/server/connectors/types';
import { errorFields, log } from '@/lib/server/log';

interface PlatformResponse {
  status: number;
  body: Record<string, unknown>;
}

const TIMEOUT_MS = 15_000;

/** One JSON request to a platform, with a timeout; network failures become a retryable PlatformError. */
export async function requestJson(
  platform: ConnectorId,
  url: string,
  init: RequestInit = {},
  timeoutMs = TIMEOUT_MS,
): Promise<PlatformResponse> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    log.warn({ component: 'platforms', platform, origin: new URL(url).origin, ...errorFields(error) }, 'platform unreachable');
    throw new PlatformError(platform, 'retryable', 'The platform could not be reached. Try again in a minute.');
  }
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { raw: text.slice(0, 200) };
  }
  return { status: response.status, body };
}

export const form = (values: Record<string, string>) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(values).toString(),
});

export const bearer = (token: string, extra: Record<string, string> = {}) => ({ Authorization: `Bearer ${token}`, ...extra });

/** An OAuth token answer's `expires_in` (seconds) as epoch ms, or undefined when it gives none. */
export const expiresAtOf = (expiresIn: unknown): number | undefined =>
  typeof expiresIn === 'number' && expiresIn > 0 ? Date.now() + expiresIn * 1000 : undefined;

/** A report figure the platform answers as decimal text ("12.34"; Meta, TikTok): a number, 0 when absent or not one. */
export const reportedNumber = (value: string | undefined): number => {
  const parsed = Number(value ?? 0);
  return Number.isFinite(parsed) ? parsed : 0;
};
