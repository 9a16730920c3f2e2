import { adAccountLimitMessage, entitlementsOf, includesAdAccounts, PLAN_ENTITLEMENTS, planOf } from '@/lib/shared/billing/entitlements';
import { schedulesAllowed, SCHEDULE_LABELS, type Connection } from '@/lib/shared/connections/connection';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import { raiseAlert, resolveAlert } from '@/lib/server/alerts';
import { listConnections } from '@/lib/server/repos/connections';
import { listConversions } from '@/lib/server/repos/conversions';
import { planOfOrganization, resumeFromPlanPause, setPausedByPlan } from '@/lib/server/repos/planPauses';

/**
 * After a plan change (the Stripe webhook) or an edit that may bring an organization back within its plan
 * (a connection's schedule or accounts, a source's accounts), pauses what the plan no longer includes and
 * resumes what it includes again. Nothing runs past the plan with no word: each pause says why and the way
 * out, and raises a `paused_by_plan` alert; a resume resolves it. A connection or conversion the user
 * paused is left alone. Idempotent: it writes only what changes.
 */
export async function applyPlan(orgId: string, plan?: unknown): Promise<{ paused: string[]; resumed: string[] }> {
  const current = plan === undefined ? await planOfOrganization(orgId) : plan;
  const [connections, conversions] = await Promise.all([listConnections(orgId), listConversions(orgId)]);
  const outcome = { paused: [] as string[], resumed: [] as string[] };
  const wanted = [
    ...connectionPauses(current, connections).map((entry) => ({
      ...entry,
      collection: 'connections' as const,
      type: 'connection' as const,
    })),
    ...conversionPauses(current, conversions).map((entry) => ({
      ...entry,
      collection: 'conversions' as const,
      type: 'conversion' as const,
    })),
  ];
  for (const { collection, type, item, reason } of wanted) {
    const subject = { type, id: item.id, name: item.name };
    if (reason && (item.pausedByPlan !== reason || item.status !== 'paused')) {
      await setPausedByPlan(orgId, collection, item.id, reason);
      await raiseAlert({ orgId, kind: 'paused_by_plan', subject, message: reason });
      outcome.paused.push(item.id);
    } else if (!reason && item.pausedByPlan) {
      await resumeFromPlanPause(orgId, collection, item.id);
      await resolveAlert({ orgId, kind: 'paused_by_plan', subject, message: `${item.name} runs again: the plan includes it.` });
      outcome.resumed.push(item.id);
    }
  }
  return outcome;
}

/** Whether the user paused it (not the plan): left alone. */
const pausedByUser = (item: { status: string; pausedByPlan?: string | null }) => item.status === 'paused' && !item.pausedByPlan;

/**
 * Each connection and the plan's reason to pause it (null: it may run). Oldest first, a connection runs
 * while the ad accounts of those running, its own included, fit the plan; its schedule must be one the
 * plan includes.
 */
function connectionPauses(plan: unknown, connections: Connection[]): Array<{ item: Connection; reason: string | null }> {
  const entitlements = entitlementsOf(plan);
  const name = planOf(plan)?.name ?? 'current';
  const running = new Set<string>();
  const keysOf = (connection: Connection) => connection.source.accounts.map((account) => `${connection.source.sourceId}/${account.id}`);
  const total = new Set(connections.filter((connection) => !pausedByUser(connection)).flatMap(keysOf)).size;
  const oldestFirst = [...connections].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const result: Array<{ item: Connection; reason: string | null }> = [];
  for (const connection of oldestFirst) {
    if (pausedByUser(connection)) continue;
    const every = connection.schedule.every;
    if (!schedulesAllowed(entitlements.syncFrequency).includes(every)) {
      const plans = PLAN_ENTITLEMENTS.filter((candidate) => schedulesAllowed(candidate.syncFrequency).includes(every)).map((p) => p.name);
      result.push({
        item: connection,
        reason: `Paused by plan: the ${name} plan does not sync ${SCHEDULE_LABELS[every].toLowerCase()}. Upgrade to ${plans.join(' or ')}, or edit its schedule.`,
      });
      continue;
    }
    const withIt = new Set([...running, ...keysOf(connection)]);
    if (!includesAdAccounts(entitlements, withIt.size)) {
      result.push({
        item: connection,
        reason: `Paused by plan: ${adAccountLimitMessage(plan, total)} Or take ad accounts out of your connections.`,
      });
      continue;
    }
    for (const key of withIt) running.add(key);
    result.push({ item: connection, reason: null });
  }
  return result;
}

/** Why a conversion is paused on a plan without conversions. */
export function conversionsPausedByPlan(): string {
  const plans = PLAN_ENTITLEMENTS.filter((candidate) => candidate.conversions).map((candidate) => candidate.name);
  return `Paused by plan: conversions are included in the ${plans.join(' and ')} plans. Upgrade to send them again.`;
}

/** Each conversion and the plan's reason to pause it: none when the plan includes conversions. */
function conversionPauses(plan: unknown, conversions: Conversion[]): Array<{ item: Conversion; reason: string | null }> {
  const included = entitlementsOf(plan).conversions;
  const reason = conversionsPausedByPlan();
  return conversions
    .filter((conversion) => conversion.pausedByPlan || (!included && conversion.status !== 'paused'))
    .map((conversion) => ({ item: conversion, reason: included ? null : reason }));
}
