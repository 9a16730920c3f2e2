/** An API answer that was not a 2xx, with the server's code, message and field errors. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: Record<string, string[]> = {},
    /** The server's machine-readable code ('needs_reauth', 'in_use' …); '' when it sent none. */
    readonly code = '',
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Record<string, string>;
  body?: unknown;
}

/** Calls our own API as the signed-in user (bearer ID token) and returns the parsed JSON. */
export async function apiRequest<T>(path: string, { method = 'GET', query, body }: RequestOptions = {}): Promise<T> {
  // Loaded on first use, so code that only holds the store never starts the Firebase SDK.
  const { clientAuth } = await import('@/lib/client/firebase/auth');
  const auth = clientAuth();
  await auth.authStateReady(); // right after a page load the signed-in user is still being restored
  const token = await auth.currentUser?.getIdToken();
  const url = query ? `${path}?${new URLSearchParams(query)}` : path;
  const response = await fetch(url, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new ApiRequestError(
      response.status,
      payload.message ?? 'An unexpected error occurred',
      payload.fieldErrors,
      typeof payload.code === 'string' ? payload.code : '',
    );
  }
  return payload as T;
}
