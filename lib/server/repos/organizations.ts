import { FieldPath, FieldValue, type DocumentData, type DocumentSnapshot } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import { isOrganizationRole, type OrganizationRole } from '@/lib/shared/permissions';
import type { OrganizationListEntry } from '@/lib/shared/schemas/organization';
import { isDocumentId } from '@/lib/shared/ids';

/** An organization's document as stored (handlers receive it loaded: createHandler). */
export type OrganizationData = DocumentData;

export const organizationsCollection = () => adminDb().collection('organizations');
export const membersCollection = (orgId: string) => organizationsCollection().doc(orgId).collection('members');

export const ORGANIZATIONS_PAGE_SIZE = 50;

export interface OrganizationWithMembership {
  organization: DocumentData | null;
  role: OrganizationRole | null;
}

/** The organization and the caller's membership in one round trip. */
export async function getOrganizationWithMembership(orgId: string, uid: string): Promise<OrganizationWithMembership> {
  const orgRef = organizationsCollection().doc(orgId);
  const [orgSnap, memberSnap] = await adminDb().getAll(orgRef, orgRef.collection('members').doc(uid));
  const role = memberSnap?.get('role');
  return {
    organization: orgSnap?.exists ? (orgSnap.data() ?? null) : null,
    role: memberSnap?.exists && isOrganizationRole(role) ? role : null,
  };
}

export function toListEntry(snap: DocumentSnapshot): OrganizationListEntry {
  const data = snap.data() ?? {};
  return {
    organization_id: snap.id,
    company_name: data.company_name ?? data.name ?? '',
    company_logo: data.company_logo ?? data.logo ?? null,
    connections_count: data.connections_count ?? 0,
  };
}

interface NewOrganization {
  name: string;
  logo: string | null;
  isDefault: boolean;
  owner: { uid: string; email: string; fullName: string };
}

/** Creates the organization with its creator as owner, in one batch. */
export async function createOrganization({ name, logo, isDefault, owner }: NewOrganization): Promise<string> {
  const org = organizationsCollection().doc();
  const batch = adminDb().batch();
  batch.create(org, {
    name,
    company_name: name,
    name_lower: name.toLowerCase(),
    logo,
    company_logo: logo,
    is_default: isDefault,
    connections_count: 0,
    subscription: null,
    created_by: owner.uid,
    created_at: FieldValue.serverTimestamp(),
  });
  batch.create(org.collection('members').doc(owner.uid), {
    uid: owner.uid,
    role: 'owner',
    email: owner.email,
    fullName: owner.fullName,
    joined_at: FieldValue.serverTimestamp(),
  });
  await batch.commit();
  return org.id;
}

/** The organizations a user belongs to: one collection-group query on members, one batched read. */
export async function listOrganizationsOfUser(uid: string): Promise<OrganizationListEntry[]> {
  const memberships = await adminDb().collectionGroup('members').where('uid', '==', uid).get();
  const refs = memberships.docs.map((member) => member.ref.parent.parent!);
  if (refs.length === 0) return [];
  const snaps = await adminDb().getAll(...refs);
  return snaps
    .filter((snap) => snap.exists)
    .map(toListEntry)
    .sort((a, b) => a.company_name.localeCompare(b.company_name));
}

function encodeCursor(snap: DocumentSnapshot): string {
  return Buffer.from(JSON.stringify([snap.get('name_lower') ?? '', snap.id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // The second part becomes a document path in startAfter: it must be an id, or Firestore throws.
    return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && isDocumentId(value[1])
      ? (value as [string, string])
      : null;
  } catch {
    return null;
  }
}

/** Every organization, for super admins: by name, a page at a time, optionally by name prefix. */
export async function listAllOrganizations({ search, cursor }: { search?: string; cursor?: string }) {
  let query = organizationsCollection().orderBy('name_lower').orderBy(FieldPath.documentId());
  const prefix = search?.toLowerCase();
  if (prefix) query = query.where('name_lower', '>=', prefix).where('name_lower', '<', `${prefix}\uf8ff`);
  const after = cursor ? decodeCursor(cursor) : null;
  if (after) query = query.startAfter(...after);
  const page = await query.limit(ORGANIZATIONS_PAGE_SIZE + 1).get();
  const docs = page.docs.slice(0, ORGANIZATIONS_PAGE_SIZE);
  return {
    organizations: docs.map(toListEntry),
    nextCursor: page.docs.length > ORGANIZATIONS_PAGE_SIZE ? encodeCursor(docs.at(-1)!) : null,
  };
}

/** Name and logo live under both spellings the spec shows (name/company_name, logo/company_logo). */
export async function updateOrganizationProfile(orgId: string, { name, logo }: { name: string; logo: string | null }) {
  await organizationsCollection().doc(orgId).update({
    name,
    company_name: name,
    name_lower: name.toLowerCase(),
    logo,
    company_logo: logo,
    updated_at: FieldValue.serverTimestamp(),
  });
}
