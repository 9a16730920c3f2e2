import { FieldValue, type DocumentData, type DocumentSnapshot } from 'firebase-admin/firestore';
import { adminDb } from '@/lib/server/firebaseAdmin';
import {
  addToDirectory,
  compareKeys,
  readDirectory,
  removeFromDirectory,
  type DirectoryKey,
} from '@/lib/server/repos/organizationDirectory';
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

/** Creates the organization with its creator as owner, in one batch, after entering it in the directory. */
export async function createOrganization({ name, logo, isDefault, owner }: NewOrganization): Promise<string> {
  const org = organizationsCollection().doc();
  // First the key: should the batch fail, a key without its organization is skipped by the list's reader.
  await addToDirectory({ name: name.toLowerCase(), id: org.id });
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

const encodeCursor = (key: DirectoryKey) => Buffer.from(JSON.stringify([key.name, key.id])).toString('base64url');

function decodeCursor(cursor: string): DirectoryKey | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // The second part becomes a document path when the page is read: it must be an id, or Firestore throws.
    return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && isDocumentId(value[1])
      ? { name: value[0], id: value[1] }
      : null;
  } catch {
    return null;
  }
}

/**
 * Where a page of every organization is, by name (and id among equal names), from the directory: after the
 * cursor, within the search's prefix; one key more than a page, to know whether another follows.
 */
export function findAllOrganizationsPage({ search, cursor }: { search?: string; cursor?: string }): Promise<DirectoryKey[]> {
  const prefix = search?.toLowerCase() || '';
  const from: DirectoryKey = { name: prefix, id: '' };
  const after = cursor ? decodeCursor(cursor) : null;
  return readDirectory({
    start: after && compareKeys(after, from) > 0 ? { after } : { from },
    below: prefix ? `${prefix}\uf8ff` : undefined,
    count: ORGANIZATIONS_PAGE_SIZE + 1,
  });
}

/** The fields toListEntry reads, and the name the directory's key must still match. */
const LIST_FIELDS = ['name', 'company_name', 'logo', 'company_logo', 'connections_count', 'name_lower'];

/**
 * The organizations of a page found in the directory, read by id with the fields the list shows. A key
 * whose organization is gone or renamed since (its new key is elsewhere in the directory) is skipped.
 */
export async function readAllOrganizationsPage(keys: DirectoryKey[]) {
  const page = keys.slice(0, ORGANIZATIONS_PAGE_SIZE);
  const refs = page.map((key) => organizationsCollection().doc(key.id));
  const snaps = refs.length ? await adminDb().getAll(...refs, { fieldMask: LIST_FIELDS }) : [];
  return {
    organizations: snaps.filter((snap, i) => snap.get('name_lower') === page[i]!.name).map(toListEntry),
    nextCursor: keys.length > ORGANIZATIONS_PAGE_SIZE ? encodeCursor(page.at(-1)!) : null,
  };
}

/**
 * Name and logo live under both spellings the spec shows (name/company_name, logo/company_logo). A new name
 * is entered in the directory before the organization takes it, and the old one taken out after: between
 * the two, the list's reader skips whichever key the organization's name does not match.
 */
export async function updateOrganizationProfile(orgId: string, { name, logo }: { name: string; logo: string | null }) {
  const ref = organizationsCollection().doc(orgId);
  const before = (await ref.get()).get('name_lower');
  const renamed = before !== name.toLowerCase();
  if (renamed) await addToDirectory({ name: name.toLowerCase(), id: orgId });
  await ref.update({
    name,
    company_name: name,
    name_lower: name.toLowerCase(),
    logo,
    company_logo: logo,
    updated_at: FieldValue.serverTimestamp(),
  });
  if (renamed && typeof before === 'string') await removeFromDirectory({ name: before, id: orgId });
}
