import { createAction, createSlice } from '@reduxjs/toolkit';
import type { Role } from '@/lib/shared/permissions';
import type { OrganizationDocument } from '@/lib/shared/schemas/organization';
import { fetchOrganization, type OrganizationLoadFailure } from '@/store/thunks';
import type { FetchStatus } from '@/store/types';
import { organizationSelected, userSignedIn, userSignedOut } from '@/store/userSlice';

/** The selected organization's document, loaded when the selection changes. */
export interface OrganizationState {
  document: OrganizationDocument | null;
  /** The signed-in user's role here: only for showing controls, the server decides. */
  role: Role | null;
  status: FetchStatus;
  failure: OrganizationLoadFailure | null;
}

const initialState: OrganizationState = { document: null, role: null, status: 'idle', failure: null };

/** The user is no longer a member (removed while the page was open). */
export const organizationAccessLost = createAction('organization/accessLost');

const organizationSlice = createSlice({
  name: 'organization',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(fetchOrganization.pending, (state) => {
        state.status = 'pending';
      })
      .addCase(fetchOrganization.fulfilled, (_state, { payload }) => ({ ...payload, status: 'success', failure: null }))
      .addCase(fetchOrganization.rejected, (_state, { payload }) => ({ ...initialState, status: 'error', failure: payload ?? 'failed' }))
      .addCase(organizationAccessLost, () => ({ ...initialState, status: 'error', failure: 'not_found' }))
      .addCase(organizationSelected, () => initialState)
      .addCase(userSignedIn, () => initialState)
      .addCase(userSignedOut, () => initialState);
  },
  selectors: {
    selectOrganization: (state) => state,
  },
});

export const { selectOrganization } = organizationSlice.selectors;
export default organizationSlice;
