import type { NextApiHandler, PageConfig } from 'next';
import { apiResolver } from 'next/dist/server/api-utils/node/api-resolver';
import { serve } from '@/sandbox/server';

export interface TestServer {
  url: string;
  close: () => Promise<void>;
}

/**
 * The route segments of `path` by a Next route pattern (`/api/orgs/[orgId]/apps/[id]`), decoded as
 * Next decodes them; null when the path does not match.
 */
function routeSegments(pattern: string, path: string): Record<string, string> | null {
  const names = pattern.split('/');
  const parts = path.split('/');
  if (names.length !== parts.length) return null;
  const segments: Record<string, string> = {};
  for (const [index, name] of names.entries()) {
    const dynamic = /^\[(\w+)\]$/.exec(name);
    if (dynamic) segments[dynamic[1]!] = decodeURIComponent(parts[index]!);
    else if (name !== parts[index]) return null;
  }
  return segments;
}

/**
 * Serves one API handler over real HTTP through Next's own API resolver (body parsing, cookies, res
 * helpers); `config` is the route's exported config (a raw-body webhook passes its own). With a
 * `route` pattern, requests go to real paths (`call(server, { path })`) and the route segments join
 * the query as Next does; otherwise route segments are sent as query parameters.
 */
export async function serveHandler(handler: NextApiHandler, config?: PageConfig, route?: string): Promise<TestServer> {
  const { url, close } = await serve('api test server', (req, res) => {
    const requestUrl = new URL(req.url ?? '/', 'http://localhost');
    let segments: Record<string, string> | null;
    try {
      segments = route ? routeSegments(route, requestUrl.pathname) : {};
    } catch {
      // Next answers a segment it cannot decode with 400 before any handler runs.
      res.writeHead(400).end();
      return;
    }
    if (!segments) {
      res.writeHead(404).end();
      return;
    }
    const query = { ...Object.fromEntries(requestUrl.searchParams.entries()), ...segments };
    return apiResolver(
      req,
      res,
      query,
      { default: handler, config },
      { previewModeId: 'test', previewModeEncryptionKey: 'test', previewModeSigningKey: 'test', dev: false },
      false,
    );
  });
  return { url, close };
}

interface CallOptions {
  method?: string;
  /** The request path, for a server with a route pattern (already percent-encoded). */
  path?: string;
  query?: Record<string, string>;
  body?: unknown;
  token?: string;
  /** A session cookie, sent as a browser on one of our pages would: with our own Origin. */
  session?: string;
  headers?: Record<string, string>;
}

export async function call(
  server: TestServer,
  { method = 'GET', path = '/', query, body, token, session, headers = {} }: CallOptions = {},
) {
  const url = query ? `${server.url}${path}?${new URLSearchParams(query)}` : `${server.url}${path}`;
  const response = await fetch(url, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(session ? { Cookie: `__session=${session}`, Origin: server.url } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  return { status: response.status, headers: response.headers, body: json };
}

/** `call`, its answer's body read loosely: for tests that read deep into answers. */
export const callLoose = (...args: Parameters<typeof call>) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read loosely
  call(...args) as Promise<{ status: number; headers: Headers; body: any }>;

/** Serves each handler of a map on its own server (configs for routes that export one). */
export async function serveHandlers<T extends Record<string, NextApiHandler>>(
  handlers: T,
  configs: Partial<Record<keyof T, PageConfig>> = {},
): Promise<Record<keyof T, TestServer>> {
  const entries = await Promise.all(
    Object.entries(handlers).map(async ([name, handler]) => [name, await serveHandler(handler, configs[name as keyof T])] as const),
  );
  return Object.fromEntries(entries) as Record<keyof T, TestServer>;
}

export const closeAll = (servers: Record<string, TestServer>) => Promise.all(Object.values(servers).map((server) => server.close()));
