import type { NextApiHandler, PageConfig } from 'next';
import { apiResolver } from 'next/dist/server/api-utils/node/api-resolver';
import { serve } from '@/tests/fakes/httpServer';

export interface TestServer {
  url: string;
  close: () => Promise<void>;
}

/**
 * Serves one API handler over real HTTP through Next's own API resolver (body parsing, cookies, res
 * helpers); `config` is the route's exported config (a raw-body webhook passes its own).
 */
export async function serveHandler(handler: NextApiHandler, config?: PageConfig): Promise<TestServer> {
  const { url, close } = await serve('api test server', (req, res) => {
    const query = Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams.entries());
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
  query?: Record<string, string>;
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

export async function call(server: TestServer, { method = 'GET', query, body, token, headers = {} }: CallOptions = {}) {
  const url = query ? `${server.url}/?${new URLSearchParams(query)}` : `${server.url}/`;
  const response = await fetch(url, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
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
