/**
 * The reading job of "Counted by the platform" (docs/architecture/counted.md): per organization, its ad
 * conversions are grouped by platform account, and one `counted` read per account answers all of them
 * (the cost floor: one report per account per read, whatever the number of conversions). Each
 * conversion's days are what we sent beside what the platform received of it, with the platform's own
 * figures and whose events they cover, stored one document per day; the share of the week it received
 * decides the alert. Runs in the worker on its own timer: it never holds up a delivery.
 */
import { addDays } from '@/lib/shared/connections/windows';
import {
  countDay,
  countedShare,
  figureScope,
  isFinal,
  RECONCILE_DAYS,
  SHARE_DAYS,
  windowDays,
  type PlatformFigure,
  type ReconcileDay,
} from '@/lib/shared/conversions/reconciliation';
import { PLATFORM_LABELS, type AdAccount, type AdPlatform, type Integration } from '@/lib/shared/integrations/platforms';
import { raiseAlert, resolveAlert } from '@/lib/server/alerts';
import { evaluateCounted } from '@/lib/server/alerts/counted';
import { startPoller } from '@/lib/server/delivery/poller';
import { workWithSession } from '@/lib/server/credentials';
import { PlatformError } from '@/lib/server/connectors/errors';
import { connectorFor } from '@/lib/server/connectors/registry';
import type { CountedRow } from '@/lib/server/connectors/types';
import { DomainError } from '@/lib/server/errors';
import { errorFields, labels, log } from '@/lib/server/log';
import { listIntegrations } from '@/lib/server/repos/integrations';
import {
  claimReconcile,
  finishReconcile,
  organizationIds,
  ourDays,
  ourHours,
  readTargets,
  renewReconcile,
  saveReconciliation,
  storedDays,
  type OurHour,
  type ReadTarget,
} from '@/lib/server/repos/reconciliation';

export interface ReconcileOptions {
  now?: Date;
  /** Counts each request made to a platform (the bench's report calls). */
  onCall?: () => void;
  /**
   * Called before each account is read (the poller renews its lease); false stops the read: another
   * worker holds the organization now and reads it itself.
   */
  renew?: () => Promise<boolean>;
}

export interface ReconcileResult {
  conversions: number;
  accounts: number;
  /** Days read per account (the window of this read). */
  days: number;
  /** Ad conversions that cannot be read, each with the reason (also stored as their summary's message). */
  skipped: Array<{ id: string; reason: string }>;
}

interface Member {
  conversion: ReadTarget;
  /** Never read before: its first read covers RECONCILE_DAYS. */
  firstRead: boolean;
  createdBy: string | null;
  threshold: number;
  /** The organization's other conversions sending to the same target (they share the platform's per-target figures). */
  others: number;
}

/** What a member's read needs of ours: its hour documents over the window, and the event names its figures are read by. */
interface Ours {
  hours: OurHour[];
  /** Its named events, or (sending every event) the names it delivered over the window. */
  events: string[];
}

const codeOf = (error: unknown) => (error instanceof PlatformError || error instanceof DomainError ? error.code : null);
const sameEvents = (a: string[] | null, b: string[]) => (a ?? []).slice().sort().join('\u0000') === b.slice().sort().join('\u0000');
const targetKey = (destination: ReadTarget['destination']) => `${destination.platform}|${destination.accountId}|${destination.targetId}`;

/**
 * A member's hours since the day before the asked window (the account's days may start up to a day before
 * UTC's), and the names the platform's figures of it are read by.
 */
async function oursOf(orgId: string, member: Member, firstDay: string): Promise<Ours> {
  const hours = await ourHours(orgId, member.conversion.id, `${addDays(firstDay, -1)}T00`);
  const named = member.conversion.mapping.events;
  const delivered = [...new Set(hours.flatMap((hour) => Object.keys(hour.names)))].sort();
  return { hours, events: named.length > 0 ? named : delivered };
}

/** The logins that may read an account's reporting: the organization's sources holding it, then the destination's own. */
function loginsFor(sources: Integration[], platform: AdPlatform, accountId: string, destinationId: string) {
  const holding = sources.filter(
    (source) =>
      source.platform === platform && source.status !== 'needs_reauth' && source.accounts.some((account) => account.id === accountId),
  );
  return [...holding.map((source) => ({ kind: 'source' as const, id: source.id })), { kind: 'destination' as const, id: destinationId }];
}

/** Reads the account with the first login that may; `needs_scope` when none may read its reporting. */
async function readAccount(
  orgId: string,
  sources: Integration[],
  members: Array<Member & { ours: Ours }>,
  from: string,
  to: string,
  now: Date,
  onCall?: () => void,
): Promise<{ rows: CountedRow[]; timeZone: string } | { state: 'needs_scope' | 'failed'; message: string }> {
  const { platform, accountId, destinationId } = members[0]!.conversion.destination;
  const counted = connectorFor(platform).counted;
  if (!counted) return { state: 'failed', message: 'This platform reports no conversions back.' };
  // One target per pixel, action or goal and set of names: two conversions sending the same names there read one figure.
  const targets = [
    ...new Map(
      members.map(({ conversion, ours }) => [
        `${conversion.destination.targetId}\u0000${ours.events.slice().sort().join('\u0000')}`,
        { id: conversion.destination.targetId, name: conversion.destination.targetName, events: ours.events },
      ]),
    ).values(),
  ];
  let refused = false;
  for (const login of loginsFor(sources, platform as AdPlatform, accountId, destinationId)) {
    try {
      // A login refused reporting is refreshed once (its cached token may have ended), then only skipped:
      // a login without reporting (scope or access) is not dead for deliveries.
      const read = await workWithSession(
        orgId,
        login.kind,
        login.id,
        (session, integration) => {
          const account: AdAccount = integration.accounts.find((candidate) => candidate.id === accountId) ?? {
            id: accountId,
            name: accountId,
          };
          return counted(session, { account, targets, from, to, now, onCall });
        },
        { refusal: 'no_access' },
      );
      // Plain rows are UTC days; a read that knows its account's zone says which days its rows are.
      return Array.isArray(read) ? { rows: read, timeZone: 'UTC' } : read;
    } catch (error) {
      const code = codeOf(error);
      // Refused (no reporting scope or access): the next login is tried.
      if (code === 'needs_reauth' || code === 'forbidden') {
        refused = true;
        continue;
      }
      log.error({ component: 'reconcile', ...labels({ org: orgId }), account: accountId, ...errorFields(error) }, 'a platform read failed');
      const message = error instanceof Error ? error.message : 'The platform could not be read.';
      return { state: 'failed', message: `${message} The figures are read again at the next round.` };
    }
  }
  const label = PLATFORM_LABELS[platform as AdPlatform];
  return {
    state: refused ? 'needs_scope' : 'failed',
    message: `The ${label} login of this conversion's destination cannot read reporting for account ${accountId}. Reconnect the destination and allow reading reports (or connect a ${label} source with this account).`,
  };
}

/**
 * One conversion's days over the window (days of `timeZone`, the account's): what we sent beside what the
 * platform received of it, and the platform's own figures with whose events they cover.
 */
function daysOf(member: Member & { ours: Ours }, rows: CountedRow[], window: string[], now: Date, timeZone: string): ReconcileDay[] {
  const { conversion, ours } = member;
  const platform = conversion.destination.platform as AdPlatform;
  const counts = connectorFor(platform).countsReceived;
  const scope = (figure: 'received' | 'attributed') =>
    figureScope(platform, figure, { events: ours.events, target: conversion.destination.targetName, others: member.others });
  const theirs = new Map<string, { received: number | null; attributed: number }>();
  for (const row of rows) {
    if (row.targetId !== conversion.destination.targetId) continue;
    if (row.events !== null && !sameEvents(row.events, ours.events)) continue;
    const day = theirs.get(row.date) ?? { received: row.received === null ? null : 0, attributed: 0 };
    if (row.received !== null) day.received = (day.received ?? 0) + row.received;
    day.attributed += row.attributed;
    theirs.set(row.date, day);
  }
  // A platform that counts by event name has no figure of a conversion whose names are unknown (it sent nothing yet).
  const read = !(counts && ours.events.length === 0);
  const figure = (count: number | null, words: string | null): PlatformFigure | null =>
    read && count !== null && words !== null ? { count, scope: words } : null;
  const ourByDay = ourDays(ours.hours, window[0]!, timeZone);
  const today = window.at(-1)!;
  const days: ReconcileDay[] = [];
  for (const date of window) {
    const our = ourByDay.get(date) ?? { sent: 0, accepted: 0 };
    const their = theirs.get(date);
    if (!their && our.sent === 0) continue;
    // A platform that reports what it received and lists no row for a day received none of those names then.
    const received = their ? their.received : counts ? 0 : null;
    const platformFigures = {
      received: figure(received, scope('received')),
      attributed: figure(their?.attributed ?? 0, scope('attributed')),
    };
    days.push(countDay(platform, { date, ...our, platform: platformFigures, final: isFinal(platform, date, now, timeZone) }, today));
  }
  return days;
}

/**
 * Reads what the platforms counted for every ad conversion of an organization. The first read of an
 * account covers RECONCILE_DAYS; later ones the last SHARE_DAYS + 1 (older days are final and kept).
 */
export async function reconcileOrganization(orgId: string, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const now = options.now ?? new Date();
  const groups = new Map<string, Member[]>();
  const skipped: ReconcileResult['skipped'] = [];
  const all = await readTargets(orgId);
  // How many conversions send to each target: its per-target figures are theirs together.
  const senders = new Map<string, number>();
  for (const { target } of all) {
    if (target && !('skipped' in target)) senders.set(targetKey(target.destination), (senders.get(targetKey(target.destination)) ?? 0) + 1);
  }
  for (const { id, target, ...member } of all) {
    if (!target) continue;
    if ('skipped' in target) {
      skipped.push({ id, reason: target.skipped });
      continue;
    }
    const { platform, destinationId, accountId } = target.destination;
    const key = `${platform}|${destinationId}|${accountId}`;
    const others = (senders.get(targetKey(target.destination)) ?? 1) - 1;
    groups.set(key, [...(groups.get(key) ?? []), { conversion: target, ...member, others }]);
  }
  for (const { id, reason } of skipped) {
    log.warn({ component: 'reconcile', ...labels({ org: orgId, conversion: id }), reason }, 'a conversion skipped');
    await saveReconciliation(orgId, id, [], { state: 'failed', message: reason, week: null }, now);
  }
  let conversions = 0;
  let widest = 0;
  // The organization's sources, read once for all its accounts (a source login may read any of them).
  const sources = groups.size > 0 ? await listIntegrations(orgId, 'source') : [];
  for (const group of groups.values()) {
    if (options.renew && !(await options.renew())) break;
    const first = group.some((member) => member.firstRead);
    const asked = windowDays(now, first ? RECONCILE_DAYS : SHARE_DAYS + 1);
    widest = Math.max(widest, asked.length);
    const members = await Promise.all(group.map(async (member) => ({ ...member, ours: await oursOf(orgId, member, asked[0]!) })));
    const read = await readAccount(orgId, sources, members, asked[0]!, asked.at(-1)!, now, options.onCall);
    // The same number of days, ending on the account's today: the days the platform answered in.
    const window = 'rows' in read ? windowDays(now, asked.length, read.timeZone) : asked;
    for (const member of members) {
      conversions += 1;
      if (!('rows' in read)) {
        await saveReconciliation(orgId, member.conversion.id, [], { state: read.state, message: read.message, week: null }, now);
        continue;
      }
      const days = daysOf(member, read.rows, window, now, read.timeZone);
      // Days read before and not read again (nothing of ours or theirs this time) still count in the week.
      const fresh = new Set(days.map((day) => day.date));
      const kept = (await storedDays(orgId, member.conversion.id, now, read.timeZone)).filter((day) => !fresh.has(day.date));
      const week = countedShare([...kept, ...days], now, read.timeZone);
      await saveReconciliation(orgId, member.conversion.id, days, { state: 'read', message: null, week, timeZone: read.timeZone }, now);
      const subject = {
        type: 'conversion' as const,
        id: member.conversion.id,
        name: member.conversion.name,
        ...(member.createdBy ? { createdBy: member.createdBy } : {}),
      };
      await evaluateCounted(orgId, subject, week, member.threshold, PLATFORM_LABELS[member.conversion.destination.platform as AdPlatform]);
    }
  }
  return { conversions, accounts: groups.size, days: widest, skipped };
}

/**
 * How long a lease lasts from its last renewal: one account's read, whose longest is a Microsoft goals
 * report polled up to 15 minutes (microsoft-ads/report.ts), with room to spare.
 */
const LEASE_MS = 20 * 60_000;

/** The alerts' subject for a failed round of an organization: its reading job, not one conversion. */
const readingJobOf = (orgId: string) => ({ type: 'organization' as const, id: orgId, name: 'Counted by the platform' });

/**
 * In the worker: every `intervalMs` (RECONCILE_POLL_MS, an hour by default) each organization whose
 * last read is that old is leased (so two workers never read one organization at once) and read; the
 * lease is renewed before each account, and only its owner ends it.
 */
export function startReconcilePoller({ intervalMs, leaseMs = LEASE_MS }: { intervalMs: number; leaseMs?: number }) {
  // The first round waits a few minutes: a worker that restarts often (deploys, tests) does not read at each start.
  let first = true;
  let stopped = false;
  const firstDelayMs = Math.min(intervalMs, 5 * 60_000);
  let wait: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  const poller = startPoller('reconcile', intervalMs, async () => {
    if (first) {
      first = false;
      await new Promise<void>((resolve) => {
        wake = resolve;
        wait = setTimeout(resolve, firstDelayMs);
      });
      if (stopped) return;
    }
    for await (const orgId of organizationIds()) {
      if (stopped) return;
      const owner = await claimReconcile(orgId, leaseMs, intervalMs);
      if (!owner) continue;
      try {
        await reconcileOrganization(orgId, { renew: () => renewReconcile(orgId, owner, leaseMs) });
        await resolveAlert({ orgId, kind: 'counted_read_failed', subject: readingJobOf(orgId) });
      } catch (error) {
        log.error({ component: 'reconcile', ...labels({ org: orgId }), ...errorFields(error) }, 'an organization could not be read');
        await raiseAlert({
          orgId,
          kind: 'counted_read_failed',
          subject: readingJobOf(orgId),
          link: `/${encodeURIComponent(orgId)}/reconciliation`,
          message:
            'What the ad platforms counted could not be read for this organization. It is read again at the next round; if this stays, contact support.',
        });
      } finally {
        await finishReconcile(orgId, owner);
      }
    }
  });
  return {
    async stop() {
      stopped = true;
      if (wait) clearTimeout(wait);
      wake?.();
      await poller.stop();
    },
  };
}
