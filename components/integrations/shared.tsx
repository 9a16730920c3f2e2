import Head from 'next/head';
import type { IntegrationStatus } from '@/lib/shared/integrations/platforms';
import type { ApiFailure } from '@/store/api';

/** The server's message of a failed call, or a fallback when there is none a user can act on. */
export function messageOf(error: unknown, fallback = 'An unexpected error occurred'): string {
  const failure = error as Partial<ApiFailure> | undefined;
  return failure?.status && failure.status < 500 && failure.message ? failure.message : fallback;
}

export const fieldErrorOf = (error: unknown, field: string): string | undefined =>
  (error as Partial<ApiFailure> | undefined)?.fieldErrors?.[field]?.[0];

/** The login behind the object died: decided by the server's code (409 also means in use, last owner …). */
export const isNeedsReauth = (error: unknown) => (error as Partial<ApiFailure> | undefined)?.code === 'needs_reauth';

/** The API's code for a failure (`in_use`, `accounts_in_use` …), if it sent one. */
export const codeOf = (error: unknown): string | undefined => (error as Partial<ApiFailure> | undefined)?.code;

export function Title({ children }: { children: string }) {
  return (
    <Head>
      <title>{`${children} · SignalBridge`}</title>
    </Head>
  );
}

export function StatusBadge({ status }: { status: IntegrationStatus }) {
  return status === 'active' ? (
    <span className="badge badge--accepted">Connected</span>
  ) : (
    <span className="badge badge--pending">Needs reconnecting</span>
  );
}

export const formatDate = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/** A page whose object could not be loaded: still a titled page, with the reason. */
export function LoadFailed({ title, error, fallback }: { title: string; error: unknown; fallback: string }) {
  return (
    <div className="stack">
      <Title>{title}</Title>
      <h1>{title}</h1>
      <div role="alert" className="alert alert--error">
        {messageOf(error, fallback)}
      </div>
    </div>
  );
}

/** What a role that may read but not create is told (the server refuses it anyway). */
export const cannotCreate = (things: string) => `Your role can see ${things} but not create them. Ask an owner or admin.`;

/** A "New …" page for a role that may not create: its title and why, nothing to fill in. */
export function CannotCreatePage({ title, things }: { title: string; things: string }) {
  return (
    <div className="stack">
      <Title>{title}</Title>
      <h1>{title}</h1>
      <p className="muted">{cannotCreate(things)}</p>
    </div>
  );
}
