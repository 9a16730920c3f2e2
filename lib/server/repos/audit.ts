import { Timestamp } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';

/**
 * Notes of who saw personal data in clear, and when: `organizations/{orgId}/audit/{auto id}`, one document
 * per reveal (a deliberate click by an owner or admin, never a page load), server only (firestore.rules).
 */

export interface RevealNote {
  by: { uid: string; email: string | null; role: string };
  conversionId: string;
  deliveryId: string;
  eventId: string;
  /** The wire names of the fields shown in clear. */
  fields: string[];
}

export async function noteReveal(orgId: string, note: RevealNote): Promise<void> {
  await adminDb().collection('organizations').doc(orgId).collection('audit').add({
    action: 'delivery_row.reveal',
    by_uid: note.by.uid,
    by_email: note.by.email,
    by_role: note.by.role,
    conversion_id: note.conversionId,
    delivery_id: note.deliveryId,
    event_id: note.eventId,
    fields: note.fields,
    at: Timestamp.now(),
  });
}
