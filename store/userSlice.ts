import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { SUPER_ADMIN } from '@/lib/shared/permissions';
import { checkSuperAdmin, fetchOrganization, fetchOrganizations } from '@/store/thunks';
import type { ProviderUser } from '@/lib/client/firebase/auth';
import type { OrganizationSummary, UserState } from '@/store/userTypes';

export type { ProviderUser };
export type { OrganizationSummary, UserState } from '@/store/userTypes';

/** What the authentication provider tells us about a user. */
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
  organizations: null,
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
    pendingInvitationStored: (state, { payload }: PayloadAction<string | null>) => {
      state.pendingInvitationId = payload;
    },
  },
  extraReducers: (builder) => {
    builder
      .addCase(fetchOrganizations.fulfilled, (state, { payload }) => {
        state.organizations = payload;
      })
      .addCase(fetchOrganization.fulfilled, (state, { payload }) => {
        const { document } = payload;
        if (state.orgId === document.organization_id) state.organization = { name: document.name, logo: document.logo };
      })
      .addCase(checkSuperAdmin.fulfilled, (state, { payload }) => {
        state.role = payload;
        state.super_admin = payload === SUPER_ADMIN;
        state.checkedForSuperAdmin = true;
      });
  },
  selectors: {
    selectUser: (state) => state,
    selectIsAuthenticated: (state) => state.isAuthenticated,
    selectOrgId: (state) => state.orgId,
  },
});

export const { userSignedIn, userSignedOut, organizationsLoaded, organizationSelected, pendingInvitationStored } = userSlice.actions;
export const { selectUser, selectIsAuthenticated, selectOrgId } = userSlice.selectors;
export default userSlice;
