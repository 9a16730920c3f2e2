import { GoogleAuth, OAuth2Client, type AuthClient } from 'google-auth-library';

/**
 * What every part of `npm run cloud:setup` shares: the project, the dry-run switch, one authorized client,
 * and where the Google APIs are. CLOUD_SETUP_API_URL sends every control-plane API to one origin (the fake
 * in sandbox/gcp.ts); unset, each goes to its real endpoint. The official GAPIC clients use their REST
 * transport (HTTP/1.1 JSON, `fallback: true`), so a plain HTTP fake sees the same requests Google does.
 */
export interface CloudContext {
  projectId: string;
  /** Region of the Cloud Scheduler job (and of the Cloud Run services, later). */
  location: string;
  dryRun: boolean;
  auth: AuthClient;
  /** Options for a GAPIC client (@google-cloud/scheduler, secret-manager, resource-manager, firestore v1). */
  gapic: { fallback: true; authClient: AuthClient; apiEndpoint?: string; port?: number; protocol?: string };
  /** A JSON call to an API without a GAPIC client (IAM service accounts, Firebase Rules, Pub/Sub IAM). */
  rest: <T>(api: RestApi, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => Promise<T>;
}

/** The APIs called over plain REST, and their real origins. */
export const REST_APIS = {
  iam: 'https://iam.googleapis.com',
  rules: 'https://firebaserules.googleapis.com',
  pubsub: 'https://pubsub.googleapis.com',
} as const;
export type RestApi = keyof typeof REST_APIS;

/** A Google API's refusal: the HTTP status and google.rpc.Status of its `{error: {code, message, status}}`. */
export class CloudApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
  }
}

/** A GAPIC error (gRPC code 5, or HTTP 404 from an older transport) or a REST 404. */
export const isNotFound = (error: unknown) => {
  const { code, status } = (error ?? {}) as { code?: number | string; status?: string };
  return code === 5 || code === 404 || status === 'NOT_FOUND';
};

/**
 * An authorized client that never reaches Google: a fixed token, for a local fake (plain http) only. It
 * sends with Node's own fetch (gaxios would load node-fetch with a dynamic import, which Jest cannot run).
 */
export function fixedTokenAuth(token = 'cloud-setup-local'): AuthClient {
  const client = new OAuth2Client({ transporterOptions: { fetchImplementation: fetch } });
  client.setCredentials({ access_token: token, expiry_date: Date.now() + 24 * 3_600_000 });
  return client;
}

export interface ContextOptions {
  projectId: string;
  location?: string;
  dryRun?: boolean;
  /** Default: process.env.CLOUD_SETUP_API_URL; unset = the real Google endpoints. */
  apiUrl?: string;
  /** Default: a fixed token for an http:// apiUrl, else Application Default Credentials. */
  auth?: AuthClient;
}

export async function cloudContext({
  projectId,
  location = 'us-central1',
  dryRun = false,
  apiUrl = process.env.CLOUD_SETUP_API_URL || undefined,
  auth,
}: ContextOptions): Promise<CloudContext> {
  const base = apiUrl ? new URL(apiUrl) : undefined;
  // Credentials never travel over plain http: a local fake gets a made-up token.
  const client =
    auth ??
    (base?.protocol === 'http:'
      ? fixedTokenAuth()
      : ((await new GoogleAuth({ scopes: ['https://www.googleapis.com/auth/cloud-platform'] }).getClient()) as AuthClient));
  const gapic: CloudContext['gapic'] = { fallback: true, authClient: client };
  if (base) {
    gapic.apiEndpoint = base.hostname;
    gapic.port = Number(base.port || (base.protocol === 'http:' ? 80 : 443));
    gapic.protocol = base.protocol.replace(':', '');
  }
  const origin = (api: RestApi) => (base ? base.origin : REST_APIS[api]);
  const rest = async <T>(api: RestApi, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> => {
    const response = await client.request<{ error?: { status?: string; message?: string } }>({
      url: `${origin(api)}${path}`,
      method,
      data: body,
      responseType: 'json',
      validateStatus: () => true,
    });
    const data = response.data ?? {};
    if (response.status >= 300) {
      throw new CloudApiError(
        response.status,
        data.error?.status ?? 'UNKNOWN',
        `${method} ${path}: ${data.error?.message ?? response.statusText}`,
      );
    }
    return data as T;
  };
  return { projectId, location, dryRun, auth: client, gapic, rest };
}
