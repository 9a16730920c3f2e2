import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Role } from '@/lib/permissions';

export interface OrganizationSummary {
  organizationId: string;
  companyName: string;
  logo: string | null;
  connectionsCount: number;
}

/** The signed-in user as SPEC.md §3 lists it; persisted, and reset as a whole on sign-out. */
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
  organizations: OrganizationSummary[];
  organization: { name: string | null; logo: string | null };
  pendingInvitationId: string | null;
  role: Role | null;
  super_admin: boolean;
  checkedForSuperAdmin: boolean;
}

/** What the authentication provider tells us about a user. */
export interface ProviderUser {
  uid: string;
  email: string | null;
  displayName: string | null;
  photoURL: string | null;
}

export const initialUserState: UserState = {
  id: null,
  email: null,
  displayName: null,
  fullName: null,
  uid: null,
  isAuthenticated: false,
  profileUrl: null,
  photoURL: null,
  orgId: null,
  organizations: [],
  organization: { name: null, logo: null },
  pendingInvitationId: null,
  role: null,
  super_admin: false,
  checkedForSuperAdmin: false,
};

const userSlice = createSlice({
  name: 'user',
  initialState: initialUserState,
  reducers: {
    // Any previous user is cleared first, then the user is set from the provider result.
    userSignedIn: (_state, { payload }: PayloadAction<ProviderUser>) => ({
      ...initialUserState,
      id: payload.uid,
      uid: payload.uid,
      email: payload.email,
      displayName: payload.displayName,
      fullName: payload.displayName,
      photoURL: payload.photoURL,
      profileUrl: payload.photoURL,
      isAuthenticated: true,
    }),
    userSignedOut: () => initialUserState,
    organizationsLoaded: (state, { payload }: PayloadAction<OrganizationSummary[]>) => {
      state.organizations = payload;
    },
    organizationSelected: (
      state,
      { payload }: PayloadAction<{ orgId: string; organization?: { name: string | null; logo: string | null } }>,
    ) => {
      state.orgId = payload.orgId;
      state.organization = payload.organization ?? { name: null, logo: null };
    },
    superAdminChecked: (state, { payload }: PayloadAction<{ role: Role | null }>) => {
      state.role = payload.role;
      state.super_admin = payload.role === 'super_admin';
      state.checkedForSuperAdmin = true;
    },
    pendingInvitationStored: (state, { payload }: PayloadAction<string | null>) => {
      state.pendingInvitationId = payload;
    },
  },
  selectors: {
    selectUser: (state) => state,
    selectIsAuthenticated: (state) => state.isAuthenticated,
    selectOrgId: (state) => state.orgId,
  },
});

export const {
  userSignedIn,
  userSignedOut,
  organizationsLoaded,
  organizationSelected,
  superAdminChecked,
  pendingInvitationStored,
} = userSlice.actions;
export const { selectUser, selectIsAuthenticated, selectOrgId } = userSlice.selectors;
export default userSlice;
