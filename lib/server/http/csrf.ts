import type { NextApiRequest } from 'next';
import { ApiError } from '@/lib/server/http/errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const header = (req: NextApiRequest, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The configured public origin (APP_URL), when it is set and parses. */
function appOrigin(): string | null {
  try {
    return process.env.APP_URL ? new URL(process.env.APP_URL).origin : null;
  } catch {
    return null;
  }
}

/** Same origin: the Origin names the request's own Host, or APP_URL's origin; `null` and garbage never match. */
function isOwnOrigin(req: NextApiRequest, origin: string): boolean {
  if (origin === appOrigin()) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === origin && url.host === header(req, 'host');
  } catch {
    return false;
  }
}

/** Without an Origin header, only a browser's own `Sec-Fetch-Site: same-origin` vouches for the page. */
function isSameOriginRequest(req: NextApiRequest): boolean {
  const origin = header(req, 'origin');
  return origin === undefined ? header(req, 'sec-fetch-site') === 'same-origin' : isOwnOrigin(req, origin);
}

/** JSON, or no body at all: a cross-site form can only send form or text bodies. */
function isJsonOrEmpty(req: NextApiRequest): boolean {
  const contentType = header(req, 'content-type');
  if (contentType === undefined) return !header(req, 'transfer-encoding') && Number(header(req, 'content-length') ?? 0) === 0;
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * The browser attaches the session cookie to requests any site makes, so a cookie-authenticated state
 * change must prove it comes from our own pages: a same-origin Origin (or Sec-Fetch-Site) and a JSON
 * body. Bearer tokens are never sent by the browser on its own and need no such proof.
 */
export function assertSameSiteRequest(req: NextApiRequest): void {
  if (SAFE_METHODS.has(req.method ?? 'GET')) return;
  if (!isSameOriginRequest(req)) {
    throw new ApiError(
      403,
      'cross_site_request',
      'This request did not come from SignalBridge’s own pages, so the session cookie is not accepted for it. Use the app, or send an Authorization: Bearer token.',
    );
  }
  if (!isJsonOrEmpty(req)) {
    throw new ApiError(403, 'json_required', 'Send the request body as JSON (Content-Type: application/json).');
  }
}
