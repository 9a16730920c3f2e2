import { randomUUID } from 'node:crypto';
import type { NextApiHandler, NextApiRequest, NextApiResponse } from 'next';
import { z } from 'zod';
import { hasActiveSubscription } from '@/lib/shared/billing/gate';
import { can, SUPER_ADMIN, type Action, type Resource, type Role } from '@/lib/shared/permissions';
import { authenticate, type Caller } from '@/lib/server/http/authenticate';
import { isDocumentId } from '@/lib/shared/schemas/ids';
import { DomainError, fieldErrorsOf, forbidden, notFound } from '@/lib/server/errors';
import { ApiError, organizationNotFound, toApiError } from '@/lib/server/http/errors';
import { errorFields, labels, log, traceFields, withLogContext } from '@/lib/server/log';
import { getOrganizationWithMembership, type OrganizationData } from '@/lib/server/repos/organizations';
import { toOrganizationDocument } from '@/lib/server/repos/organizationDocument';
import { isSuperAdmin } from '@/lib/server/repos/users';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route. Membership is part of the spec, so no handler can forget to check it. */
export type Access = 'public' | 'signedIn' | 'orgMember' | 'superAdmin';

interface BaseContext<Q, B> {
  req: NextApiRequest;
  res: NextApiResponse;
  query: Q;
  body: B;
  requestId: string;
}

export interface OrganizationContext {
  id: string;
  role: Role;
  data: OrganizationData;
}

export type RouteContext<A extends Access, Q, B, P = undefined> = BaseContext<Q, B> &
  (A extends 'public' ? unknown : { caller: Caller }) &
  (A extends 'orgMember' ? { org: OrganizationContext; preloaded: P } : unknown);

type Schema = z.ZodType;
type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

export interface RouteSpec<A extends Access, Q extends Schema | undefined, B extends Schema | undefined, P = undefined> {
  access: A;
  query?: Q;
  body?: B;
  /** For orgMember routes: where the organization id is. Defaults to the `orgId` route segment. */
  orgId?: (input: { query: Infer<Q>; body: Infer<B> }) => string;
  /** For orgMember routes: what the caller's role must allow. */
  permission?: [Resource, Action];
  /** For orgMember routes: the organization must have an active subscription (402 otherwise; super admins pass). */
  subscription?: 'required';
  /**
   * For orgMember routes: a read to run while membership is checked, so a list costs one Firestore round trip
   * after the token, not two. It must only read, and read little (one query): an outsider's request runs it
   * too. Its result reaches the handler as `preloaded` once the caller is known to belong and may act; for
   * anyone else it is dropped unseen, its errors too.
   */
  preload?: A extends 'orgMember' ? (input: { orgId: string; query: Infer<Q> }) => Promise<P> : never;
  /** Returns the JSON body of a 200, or writes to ctx.res itself and returns undefined. */
  handle: (ctx: RouteContext<A, Infer<Q>, Infer<B>, P>) => unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a method map holds routes of any shape
type AnyRouteSpec = RouteSpec<Access, any, any, any>;

/** Declares one method's route; exists so TypeScript infers the context from the spec. */
export function route<A extends Access, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined, P = undefined>(
  spec: RouteSpec<A, Q, B, P>,
): RouteSpec<A, Q, B, P> {
  return spec;
}

function parse<S extends Schema | undefined>(schema: S, value: unknown, where: 'query' | 'body'): Infer<S> {
  if (!schema) return undefined as Infer<S>;
  const result = schema.safeParse(value ?? (where === 'body' ? {} : value));
  if (!result.success) {
    throw new ApiError(400, 'invalid_request', 'Some fields are missing or invalid.', fieldErrorsOf(result.error.issues));
  }
  return result.data as Infer<S>;
}

/** The route segments (`[orgId]`, `[id]` …) Next put into req.query: what the URL's query string does not hold. */
function routeSegments(req: NextApiRequest): Array<[string, unknown]> {
  const search = new URL(req.url ?? '/', 'http://localhost').searchParams;
  return Object.entries(req.query).filter(([key]) => !search.has(key));
}

/**
 * Every route segment of our API names a document, so one that breaks the id rule names nothing:
 * 404, and for `[orgId]` the very answer a missing organization gets.
 */
function assertRouteSegmentsAreIds(req: NextApiRequest): void {
  // Most requests of a route without segments carry no query at all (ingest's): nothing to parse.
  if (Object.keys(req.query).length === 0) return;
  for (const [key, value] of routeSegments(req)) {
    if (!isDocumentId(value)) throw key === 'orgId' ? organizationNotFound() : notFound('Not found.');
  }
}

function organizationIdOf(spec: AnyRouteSpec, query: unknown, body: unknown): string {
  const orgId = spec.orgId ? spec.orgId({ query, body }) : (query as { orgId?: unknown } | undefined)?.orgId;
  if (!isDocumentId(orgId)) throw organizationNotFound();
  return orgId;
}

async function organizationFor(spec: AnyRouteSpec, caller: Caller, orgId: string): Promise<OrganizationContext> {
  const { organization, role } = await getOrganizationWithMembership(orgId, caller.uid);
  if (!organization) throw organizationNotFound();
  // A super admin may act in any organization; anyone else must be a member.
  const effectiveRole: Role | null = role ?? ((await isSuperAdmin(caller.uid)) ? SUPER_ADMIN : null);
  if (!effectiveRole) throw organizationNotFound();
  if (spec.permission && !can(effectiveRole, ...spec.permission)) throw forbidden();
  if (
    spec.subscription === 'required' &&
    effectiveRole !== SUPER_ADMIN &&
    !hasActiveSubscription(toOrganizationDocument(orgId, organization).subscription)
  ) {
    throw new ApiError(402, 'subscription_required', 'This organization needs an active subscription. Choose a plan to continue.');
  }
  return { id: orgId, role: effectiveRole, data: organization };
}

function sendError(res: NextApiResponse, requestId: string, thrown: unknown) {
  const error = thrown instanceof DomainError ? toApiError(thrown) : thrown;
  if (error instanceof ApiError) {
    for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
    res.status(error.status).json({
      success: false,
      code: error.code,
      message: error.message,
      ...(error.fieldErrors ? { fieldErrors: error.fieldErrors } : {}),
      requestId,
    });
    return;
  }
  // Internals go to the log under the request id; the caller gets the id only.
  log.error(errorFields(error), 'a request failed');
  res.status(500).json({ success: false, code: 'internal', message: 'An unexpected error occurred', requestId });
}

/**
 * Wraps a method map into a Next API handler: 405 with Allow, authentication (401; 403 for a
 * cookie-authenticated state change from another site), route segments that are no id (404),
 * validation (400 with field errors), organization membership (404) and permission (403), then the handler;
 * domain errors get their status (toApiError), ApiErrors pass through as they are, anything else
 * becomes a 500 with a request id.
 */
export function createHandler(methods: Partial<Record<Method, AnyRouteSpec>>): NextApiHandler {
  const allow = Object.keys(methods).join(', ');
  return async (req, res) => {
    const requestId = randomUUID();
    res.setHeader('x-request-id', requestId);
    await withLogContext({ ...traceFields(req.headers), ...labels({ request: requestId }) }, () => handle(req, res, requestId));
  };

  async function handle(req: NextApiRequest, res: NextApiResponse, requestId: string): Promise<void> {
    res.setHeader('Cache-Control', 'no-store');
    const spec = methods[req.method as Method];
    if (!spec) {
      res.setHeader('Allow', allow);
      res.status(405).json({ success: false, code: 'method_not_allowed', message: `Use ${allow}.` });
      return;
    }
    try {
      const caller = spec.access === 'public' ? undefined : await authenticate(req);
      if (spec.access === 'superAdmin' && !(await isSuperAdmin(caller!.uid))) throw forbidden();
      assertRouteSegmentsAreIds(req);
      const query = parse(spec.query, req.query, 'query');
      const body = parse(spec.body, req.body, 'body');
      const orgId = spec.access === 'orgMember' ? organizationIdOf(spec, query, body) : undefined;
      const preload = spec.preload;
      // Called inside a promise, so that even a preload that throws at once is seen only after the checks.
      const preloading = orgId && preload ? Promise.resolve().then(() => preload({ orgId, query })) : undefined;
      preloading?.catch(() => {}); // a refused caller never sees it; an allowed one meets the error below
      const org = orgId ? await organizationFor(spec, caller!, orgId) : undefined;
      const preloaded = await preloading;

      const result = await spec.handle({ req, res, query, body, requestId, caller, org, preloaded } as never);
      if (result !== undefined && !res.headersSent) res.status(200).json(result);
    } catch (error) {
      if (!res.headersSent) sendError(res, requestId, error);
      else log.error(errorFields(error), 'a request failed after responding');
    }
  }
}
