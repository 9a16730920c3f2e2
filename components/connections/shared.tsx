import Link from 'next/link';
import {
  CONNECTION_STATUS_LABELS,
  RUN_OUTCOME_LABELS,
  type Connection,
  type ConnectionStatus,
  type RunKind,
  type RunOutcome,
} from '@/lib/shared/connections/connection';
import { configurationPathOf, PLATFORM_LABELS, type Integration, writesTables } from '@/lib/shared/integrations/platforms';

/**
 * What the connection pages share: a connection in words (route, schedule, status), run outcomes,
 * durations. Their routes are in paths.ts (the create page loads those alone).
 */

export const accountsInWords = (count: number) => `${count} ad account${count === 1 ? '' : 's'}`;

/** “Google Ads (2 ad accounts)”. */
export const sourceInWords = (connection: Connection) =>
  `${PLATFORM_LABELS[connection.source.platform]} (${accountsInWords(connection.source.accounts.length)})`;

/** “BigQuery acme-warehouse.signalbridge.ad_performance” / “Mixpanel project 3002”. */
export function destinationInWords(connection: Connection): string {
  const { platform, projectId, dataset, table } = connection.destination;
  if (writesTables(platform)) return `${PLATFORM_LABELS[platform]} ${[projectId, dataset, table].filter(Boolean).join('.')}`;
  return `${PLATFORM_LABELS[platform]} project ${projectId}`;
}

export function ConnectionStatusBadge({ status, pausedByPlan }: { status: ConnectionStatus; pausedByPlan?: string | null }) {
  if (status === 'paused' && pausedByPlan) return <span className="badge badge--pending">Paused by plan</span>;
  const modifier = status === 'active' ? 'badge--accepted' : status === 'paused' ? 'badge--revoked' : 'badge--pending';
  return <span className={`badge ${modifier}`}>{CONNECTION_STATUS_LABELS[status]}</span>;
}

export function RunOutcomeBadge({ outcome }: { outcome: RunOutcome }) {
  const modifier =
    outcome === 'succeeded'
      ? 'badge--accepted'
      : outcome === 'running'
        ? ''
        : outcome === 'cancelled'
          ? 'badge--revoked'
          : 'badge--pending';
  return <span className={`badge ${modifier}`.trim()}>{RUN_OUTCOME_LABELS[outcome]}</span>;
}

export const RUN_KIND_LABELS: Record<RunKind, string> = { scheduled: 'Scheduled', manual: 'Run now', backfill: 'Backfill' };

/** “850 ms”, “12 s”, “3 min 05 s”, “1 h 02 min”. */
export function durationInWords(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

export const formatNumber = (value: number) => new Intl.NumberFormat().format(value);

/** A day (YYYY-MM-DD) as the reader writes dates, read as a calendar day (no time zone shift). */
export const formatDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' });

/** Days, both ends included: “Nov 12, 2026 – Nov 25, 2026”, or one day. Every page that shows a run's or a test's days uses it. */
export const daysInWords = ({ from, to }: { from: string; to: string }) =>
  from === to ? formatDay(from) : `${formatDay(from)} – ${formatDay(to)}`;

/**
 * Why a run's rows may start or end a day apart from its days, or null when they cannot: its days are counted
 * in the connection's time zone, each ad account dates its rows in its own, and a scheduled or manual run asks
 * for every day begun anywhere (lookbackWindow), wider than the days shown (runDays).
 */
export function accountDaysNote(shown: { from: string; to: string }, read: { from: string; to: string }): string | null {
  if (shown.from === read.from && shown.to === read.to) return null;
  return `Each ad account dates its rows in its own time zone: to have all of these days in every account's, the run read ${daysInWords(read)}, so its rows can start or end a day apart.`;
}

/** Money in the account's currency; an unknown currency code still prints its amount. */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/**
 * Which object of a connection needs reconnecting, when one does (the server says the connection needs
 * reconnecting; the source and destination lists say which): the source is checked first, as the server does.
 */
export function deadObjectOf(
  connection: Connection,
  sources: Integration[] | undefined,
  destinations: Integration[] | undefined,
): Integration | null {
  const source = sources?.find((candidate) => candidate.id === connection.source.sourceId);
  if (source?.status === 'needs_reauth') return source;
  const destination = destinations?.find((candidate) => candidate.id === connection.destination.destinationId);
  if (destination?.status === 'needs_reauth') return destination;
  return null;
}

/** A link to the page where the object is reconnected (its configuration page has the Reconnect button). */
export function ReconnectLink({
  orgId,
  connection,
  dead,
  label = 'Reconnect',
}: {
  orgId: string;
  connection: Connection;
  dead: Integration | null;
  label?: string;
}) {
  const href = dead
    ? configurationPathOf(orgId, dead.kind, dead.id, dead.platform)
    : configurationPathOf(orgId, 'source', connection.source.sourceId, connection.source.platform);
  const what = dead ? `${PLATFORM_LABELS[dead.platform]} ${dead.kind}` : `${PLATFORM_LABELS[connection.source.platform]} source`;
  return (
    <Link href={href} aria-label={`${label} the ${what} of ${connection.name}`}>
      {label}
    </Link>
  );
}
