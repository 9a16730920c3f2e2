import { FieldValue, Timestamp, type DocumentSnapshot } from 'firebase-admin/firestore';
import {
  ALERT_KINDS,
  DEFAULT_FAILURE_THRESHOLD,
  isAlertKind,
  type AlertKindName,
  type AlertNotification,
  type AlertSubjectTypeName,
  type FailureThreshold,
} from '@/lib/shared/alerts';
import { isOrganizationRole, type OrganizationRole } from '@/lib/shared/permissions';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { notFound } from '@/lib/server/errors';
import { conversionRef } from '@/lib/server/repos/conversions';
import { hourOf, sumHours } from '@/lib/server/repos/hourTallies';

/**
 * Alerts in Firestore, under each organization: `incidents/{kind:type:id}` (one per object and kind:
 * open until resolved, then reopened in place), `notifications/{id}` (the in-app list: one notice per
 * opening and per resolution, read by whom), `alert_preferences/{uid}` (whose emails are off for which
 * kinds), `alert_settings/slack` (the sealed webhook) and `alert_settings/email` (the digest's window).
 */

const organization = (orgId: string) => adminDb().collection('organizations').doc(orgId);
export const incidents = (orgId: string) => organization(orgId).collection('incidents');
export const notifications = (orgId: string) => organization(orgId).collection('notifications');
const preferences = (orgId: string) => organization(orgId).collection('alert_preferences');
export const alertSettings = (orgId: string) => organization(orgId).collection('alert_settings');

/** The collection each kind of object lives in. */
export const SUBJECT_COLLECTION: Record<AlertSubjectTypeName, string | null> = {
  connection: 'connections',
  conversion: 'conversions',
  source: 'sources',
  destination: 'destinations',
  app: 'apps',
  organization: null,
};

export const subjectRef = (orgId: string, type: AlertSubjectTypeName, id: string) => {
  const collection = SUBJECT_COLLECTION[type];
  return collection ? organization(orgId).collection(collection).doc(id) : organization(orgId);
};

export const incidentId = (kind: AlertKindName, type: AlertSubjectTypeName, id: string) => `${kind}:${type}:${id}`;

/** How long a notice is kept (a TTL policy on `expires_at` removes it). */
const NOTICE_RETENTION_MS = 90 * 24 * 3_600_000;

/** How many notices the list shows (and the unread count counts). */
export const NOTIFICATIONS_SHOWN = 50;

const iso = (value: unknown) => (value instanceof Timestamp ? value.toDate().toISOString() : new Date(0).toISOString());

function toNotification(snap: DocumentSnapshot, uid: string): AlertNotification {
  const readBy = (snap.get('read_by') ?? []) as string[];
  return {
    id: snap.id,
    kind: snap.get('kind'),
    state: snap.get('state'),
    title: snap.get('title') ?? '',
    message: snap.get('message') ?? '',
    subject: { type: snap.get('subject_type'), id: snap.get('subject_id'), name: snap.get('subject_name') ?? '' },
    link: snap.get('link') ?? '',
    createdAt: iso(snap.get('created_at')),
    read: readBy.includes(uid),
  };
}

/** The latest notices, each read or not by `uid`, and how many of them are unread. */
export async function listNotifications(orgId: string, uid: string): Promise<{ notifications: AlertNotification[]; unread: number }> {
  const snapshot = await notifications(orgId).orderBy('created_at', 'desc').limit(NOTIFICATIONS_SHOWN).get();
  const list = snapshot.docs.map((doc) => toNotification(doc, uid));
  return { notifications: list, unread: list.filter((notification) => !notification.read).length };
}

/** Marks notices read by `uid`: the given ones (each must exist), or every notice shown. */
export async function markNotificationsRead(orgId: string, uid: string, ids: string[] | 'all'): Promise<void> {
  const refs =
    ids === 'all'
      ? (await notifications(orgId).orderBy('created_at', 'desc').limit(NOTIFICATIONS_SHOWN).get()).docs
          .filter((doc) => !((doc.get('read_by') ?? []) as string[]).includes(uid))
          .map((doc) => doc.ref)
      : ids.map((id) => notifications(orgId).doc(id));
  if (refs.length === 0) return;
  if (ids !== 'all') {
    const snaps = await adminDb().getAll(...refs);
    if (snaps.some((snap) => !snap.exists)) throw notFound('Notification not found.');
  }
  const batch = adminDb().batch();
  for (const ref of refs) batch.update(ref, { read_by: FieldValue.arrayUnion(uid) });
  await batch.commit();
}

export type EmailPreferences = Record<AlertKindName, boolean>;

const allOn = (): EmailPreferences => Object.fromEntries(ALERT_KINDS.map((kind) => [kind, true])) as EmailPreferences;

function toPreferences(snap: DocumentSnapshot | undefined): EmailPreferences {
  const off = ((snap?.exists && snap.get('email_off')) || []) as string[];
  const prefs = allOn();
  for (const kind of off) if (isAlertKind(kind)) prefs[kind] = false;
  return prefs;
}

/** Which kinds of alert `uid` gets by email in this organization (all, unless turned off). */
export async function emailPreferences(orgId: string, uid: string): Promise<EmailPreferences> {
  return toPreferences(await preferences(orgId).doc(uid).get());
}

export async function saveEmailPreferences(orgId: string, uid: string, prefs: Partial<EmailPreferences>): Promise<EmailPreferences> {
  const next = { ...(await emailPreferences(orgId, uid)), ...prefs };
  const off = ALERT_KINDS.filter((kind) => !next[kind]);
  await preferences(orgId).doc(uid).set({ email_off: off, updated_at: FieldValue.serverTimestamp() });
  return next;
}

export interface Recipient {
  uid: string;
  email: string;
  role: OrganizationRole;
  prefs: EmailPreferences;
}

/** The owners and admins, and `also` when a member (whoever created the object), with their email settings. */
export async function alertRecipients(orgId: string, also?: string | null): Promise<Recipient[]> {
  const members = await organization(orgId).collection('members').get();
  const chosen = members.docs.filter((doc) => {
    const role = doc.get('role');
    return role === 'owner' || role === 'admin' || (also && doc.id === also);
  });
  if (chosen.length === 0) return [];
  const prefSnaps = await adminDb().getAll(...chosen.map((doc) => preferences(orgId).doc(doc.id)));
  return chosen
    .map((doc, index) => ({
      uid: doc.id,
      email: String(doc.get('email') ?? ''),
      role: (isOrganizationRole(doc.get('role')) ? doc.get('role') : 'member') as OrganizationRole,
      prefs: toPreferences(prefSnaps[index]),
    }))
    .filter((recipient) => recipient.email.includes('@'));
}

/** The organization's name, for emails and Slack. */
export async function organizationName(orgId: string): Promise<string> {
  const snap = await organization(orgId).get();
  return String(snap.get('name') ?? snap.get('company_name') ?? 'Your organization');
}

/** The sealed Slack webhook of an organization, or null. */
export async function readSlackWebhook(orgId: string): Promise<string | null> {
  const snap = await alertSettings(orgId).doc('slack').get();
  return snap.exists ? ((snap.get('sealed_url') as string | undefined) ?? null) : null;
}

export async function saveSlackWebhook(orgId: string, sealedUrl: string | null, hint: string | null, uid: string): Promise<void> {
  const ref = alertSettings(orgId).doc('slack');
  if (sealedUrl === null) await ref.delete();
  else await ref.set({ sealed_url: sealedUrl, hint, updated_by: uid, updated_at: FieldValue.serverTimestamp() });
}

/** What the settings page shows of the webhook: whether there is one, and its masked form. */
export async function slackWebhookHint(orgId: string): Promise<string | null> {
  const snap = await alertSettings(orgId).doc('slack').get();
  return snap.exists ? ((snap.get('hint') as string | undefined) ?? '') : null;
}

/** A conversion's alert threshold (the default when none is saved); null when the conversion is gone. */
export async function failureThresholdOf(orgId: string, conversionId: string): Promise<FailureThreshold | null> {
  const snap = await organization(orgId).collection('conversions').doc(conversionId).get();
  return snap.exists ? thresholdOf(snap) : null;
}

export function thresholdOf(snap: DocumentSnapshot): FailureThreshold {
  const saved = snap.get('alert_threshold') as { percent?: unknown; min_events?: unknown } | undefined;
  return {
    percent: typeof saved?.percent === 'number' ? saved.percent : DEFAULT_FAILURE_THRESHOLD.percent,
    minEvents: typeof saved?.min_events === 'number' ? saved.min_events : DEFAULT_FAILURE_THRESHOLD.minEvents,
  };
}

export async function saveFailureThreshold(orgId: string, conversionId: string, threshold: FailureThreshold): Promise<void> {
  const ref = organization(orgId).collection('conversions').doc(conversionId);
  try {
    await ref.update({ alert_threshold: { percent: threshold.percent, min_events: threshold.minEvents } });
  } catch (error) {
    if ((error as { code?: unknown }).code === 5) throw notFound('Conversion not found.');
    throw error;
  }
}

/** What a new notice says; the repo adds its id and time. */
export type NoticeDraft = Omit<AlertNotification, 'id' | 'createdAt' | 'read'> & { createdBy: string | null };

export interface SubjectFacts {
  exists: boolean;
  name: string | null;
  createdBy: string | null;
  platform: string | null;
}

function factsOf(snap: DocumentSnapshot): SubjectFacts {
  return {
    exists: snap.exists,
    name: (snap.get('name') as string | undefined) ?? null,
    createdBy: ((snap.get('created_by') ?? snap.get('connected_by')) as string | undefined) ?? null,
    platform: (snap.get('platform') as string | undefined) ?? null,
  };
}

/**
 * Opens the incident of this object and kind unless one is open (then nothing is written): the incident
 * and its notice in one transaction, so two workers noticing the same failure write one of each.
 */
export async function openIncident(
  orgId: string,
  key: { kind: AlertKindName; type: AlertSubjectTypeName; id: string },
  draft: (facts: SubjectFacts) => NoticeDraft,
): Promise<(NoticeDraft & { id: string }) | null> {
  const ref = incidents(orgId).doc(incidentId(key.kind, key.type, key.id));
  const subject = subjectRef(orgId, key.type, key.id);
  return adminDb().runTransaction(async (transaction) => {
    const [incident, subjectSnap] = await Promise.all([transaction.get(ref), transaction.get(subject)]);
    if (incident.get('status') === 'open') return null;
    const facts = factsOf(subjectSnap);
    if (!facts.exists) return null;
    const notice = draft(facts);
    const noticeRef = notifications(orgId).doc();
    transaction.set(ref, {
      kind: key.kind,
      subject_type: key.type,
      subject_id: key.id,
      subject_name: notice.subject.name,
      status: 'open',
      message: notice.message,
      link: notice.link,
      created_by: notice.createdBy,
      opened_at: FieldValue.serverTimestamp(),
      resolved_at: null,
      opened_notice: noticeRef.id,
    });
    transaction.set(noticeRef, noticeData(notice));
    return { ...notice, id: noticeRef.id };
  });
}

/** Closes the open incident of this object and kind with one notice; nothing when none is open. */
export async function closeIncident(
  orgId: string,
  key: { kind: AlertKindName; type: AlertSubjectTypeName; id: string },
  draft: (incident: { name: string; link: string; createdBy: string | null }) => NoticeDraft,
): Promise<(NoticeDraft & { id: string }) | null> {
  const ref = incidents(orgId).doc(incidentId(key.kind, key.type, key.id));
  return adminDb().runTransaction(async (transaction) => {
    const incident = await transaction.get(ref);
    if (incident.get('status') !== 'open') return null;
    const notice = draft({
      name: String(incident.get('subject_name') ?? ''),
      link: String(incident.get('link') ?? ''),
      createdBy: (incident.get('created_by') as string | null | undefined) ?? null,
    });
    const noticeRef = notifications(orgId).doc();
    transaction.update(ref, { status: 'resolved', resolved_at: FieldValue.serverTimestamp() });
    transaction.set(noticeRef, noticeData(notice));
    return { ...notice, id: noticeRef.id };
  });
}

/**
 * The object is gone (deleted by a user): its open incidents close without a notice, so nobody is told
 * that a deleted thing "works again", and a later object of the same id starts afresh.
 */
export async function closeIncidentsOf(orgId: string, type: AlertSubjectTypeName, id: string, kinds: AlertKindName[]): Promise<number> {
  const refs = kinds.map((kind) => incidents(orgId).doc(incidentId(kind, type, id)));
  const open = (await adminDb().getAll(...refs)).filter((incident) => incident.get('status') === 'open');
  if (open.length === 0) return 0;
  const batch = adminDb().batch();
  for (const incident of open) {
    batch.update(incident.ref, { status: 'resolved', resolved_at: FieldValue.serverTimestamp(), resolved_by: 'deleted' });
  }
  await batch.commit();
  return open.length;
}

function noticeData(notice: NoticeDraft) {
  return {
    kind: notice.kind,
    state: notice.state,
    title: notice.title,
    message: notice.message,
    subject_type: notice.subject.type,
    subject_id: notice.subject.id,
    subject_name: notice.subject.name,
    link: notice.link,
    read_by: [],
    created_at: FieldValue.serverTimestamp(),
    // For a TTL policy on `notifications.expires_at`: the list shows the latest 50 anyway.
    expires_at: Timestamp.fromMillis(Date.now() + NOTICE_RETENTION_MS),
  };
}

/** An item of a digest waiting to be sent. */
export interface DigestItem {
  kind: AlertKindName;
  state: 'open' | 'resolved';
  title: string;
  message: string;
  link: string;
  createdBy: string | null;
}

/**
 * Decides whether a notice is emailed on its own ('send') or waits for the digest ('queued', with when
 * the digest is due): more than `perWindow` notices within `windowMs` for an organization go in a digest.
 */
export async function admitNotice(
  orgId: string,
  item: DigestItem,
  { perWindow, windowMs, digestMs }: { perWindow: number; windowMs: number; digestMs: number },
): Promise<{ send: true } | { send: false; dueAt: number }> {
  const ref = alertSettings(orgId).doc('email');
  return adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    const now = Date.now();
    const dueAt = Number(snap.get('digest_due') ?? 0);
    // A window that has passed starts again, unless a digest still waits to go out.
    const fresh = !dueAt && (!snap.exists || Number(snap.get('window_start') ?? 0) < now - windowMs);
    const sent = fresh ? 0 : Number(snap.get('sent') ?? 0);
    const pending = fresh ? [] : ((snap.get('pending') ?? []) as DigestItem[]);
    if (sent < perWindow && pending.length === 0 && !dueAt) {
      transaction.set(ref, { window_start: fresh ? now : snap.get('window_start'), sent: sent + 1, pending: [], digest_due: null });
      return { send: true };
    }
    const due = dueAt || now + digestMs;
    transaction.set(ref, {
      window_start: fresh ? now : snap.get('window_start'),
      sent,
      pending: [...pending, item].slice(-200),
      digest_due: due,
    });
    return { send: false, dueAt: due };
  });
}

/** Takes the digest's items once it is due (one taker only); the window goes on in digest mode. */
export async function takeDueDigest(orgId: string, perWindow: number): Promise<DigestItem[]> {
  const ref = alertSettings(orgId).doc('email');
  return adminDb().runTransaction(async (transaction) => {
    const snap = await transaction.get(ref);
    const dueAt = Number(snap.get('digest_due') ?? 0);
    if (!snap.exists || !dueAt || dueAt > Date.now()) return [];
    const pending = (snap.get('pending') ?? []) as DigestItem[];
    transaction.set(ref, { window_start: Date.now(), sent: perWindow, pending: [], digest_due: null });
    return pending;
  });
}

/**
 * What a conversion's delivery alerts are decided from (alerts/delivery.ts), in two reads: the conversion
 * (name, maker, threshold, parked counters) and the hourly counters of `now`'s hour and the one before; null
 * when the conversion is gone.
 */
export async function deliveryHealthOf(orgId: string, conversionId: string, now: Date) {
  const ref = conversionRef(orgId, conversionId);
  const [currentHour, previousHour] = [hourOf(now), hourOf(new Date(now.getTime() - 3_600_000))];
  const [conversion, hours] = await Promise.all([
    ref.get(),
    ref.collection('hours').where('hour', 'in', [currentHour, previousHour]).get(),
  ]);
  if (!conversion.exists) return null;
  const sums = sumHours(hours.docs);
  const sumOf = (hour: string) => ({ delivered: sums.get(hour)?.delivered ?? 0, failed: sums.get(hour)?.failed ?? 0 });
  const parked = (conversion.get('parked') ?? {}) as { held?: number; failed?: number };
  return {
    name: String(conversion.get('name') ?? conversionId),
    createdBy: conversion.get('created_by') ? String(conversion.get('created_by')) : null,
    threshold: thresholdOf(conversion),
    currentHour: sumOf(currentHour),
    previousHour: sumOf(previousHour),
    parked: { held: Number(parked.held ?? 0), failed: Number(parked.failed ?? 0) },
  };
}
