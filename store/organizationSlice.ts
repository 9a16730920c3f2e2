import { createSlice } from '@reduxjs/toolkit';
import type { OrganizationDocument } from '@/lib/schemas/organization';
import { fetchOrganization } from '@/store/thunks';
import type { FetchStatus } from '@/store/types';
import { organizationSelected, userSignedIn, userSignedOut } from '@/store/userSlice';

/** The selected organization's document, loaded when the selection changes. */
export interface OrganizationState {
  document: OrganizationDocument | null;
  status: FetchStatus;
}

const initialState: OrganizationState = { document: null, status: 'idle' };

const organizationSlice = createSlice({
  name: 'organization',
  initialState,
  reducers: {},
  extraReducers: (builder) => {
    builder
      .addCase(fetchOrganization.pending, (state) => {
        state.status = 'pending';
      })
      .addCase(fetchOrganization.fulfilled, (_state, { payload }) => ({ document: payload, status: 'success' }))
      .addCase(fetchOrganization.rejected, () => ({ document: null, status: 'error' }))
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
