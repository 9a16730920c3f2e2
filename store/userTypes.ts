import type { Role } from '@/lib/shared/permissions';

/** The user slice's state: its own module, so the thunks and the slice both import it without a circle. */

export interface OrganizationSummary {
  organizationId: string;
  companyName: string;
  logo: string | null;
  connectionsCount: number;
}

/** The signed-in user as docs/PRODUCT.md §4 lists it; persisted, and reset as a whole on sign-out. */
export interface UserState {
  id: string | null;
  email: string | null;
  displayName: string | null;
  fullName: string | null;
  uid: string | null;
  isAuthenticated: boolean;
  profileUrl: string | null;
  photoURL: string | null;
  orgId: string | null;
  /** null until loaded: "no organizations loaded" and "no organizations" are different states. */
  organizations: OrganizationSummary[] | null;
  organization: { name: string | null; logo: string | null };
  pendingInvitationId: string | null;
  role: Role | null;
  super_admin: boolean;
  checkedForSuperAdmin: boolean;
}
