import { createAsyncThunk } from '@reduxjs/toolkit';
import { apiRequest, ApiRequestError } from '@/lib/client/apiClient';
import { SUPER_ADMIN, type Role } from '@/lib/shared/permissions';
import type { OrganizationDocument, OrganizationListEntry } from '@/lib/shared/schemas/organization';
import type { OrganizationSummary, UserState } from '@/store/userTypes';

type WithUser = { state: { user: UserState } };

/** The selected organization's document; members only (the server checks). */
/** Why an organization could not be loaded: not one of the user's (404), or the check itself failed. */
export type OrganizationLoadFailure = 'not_found' | 'failed';

export const fetchOrganization = createAsyncThunk<
  { document: OrganizationDocument; role: Role },
  string,
  { rejectValue: OrganizationLoadFailure }
>('organization/fetch', async (orgId, { rejectWithValue }) => {
  try {
    const { data, role } = await apiRequest<{ data: OrganizationDocument; role: Role }>('/api/getOrganizationData', {
      query: { documentId: orgId, type: 'organization' },
    });
    return { document: data, role };
  } catch (error) {
    return rejectWithValue(error instanceof ApiRequestError && error.status === 404 ? 'not_found' : 'failed');
  }
});

export function toOrganizationSummary(entry: OrganizationListEntry): OrganizationSummary {
  return {
    organizationId: entry.organization_id,
    companyName: entry.company_name,
    logo: entry.company_logo,
    connectionsCount: entry.connections_count,
  };
}

/** The user's organizations (every organization's first page, for a super admin). */
export const fetchOrganizations = createAsyncThunk<OrganizationSummary[], void, WithUser>(
  'user/fetchOrganizations',
  async (_, { getState }) => {
    const { uid, super_admin } = getState().user;
    const { organizations } = await apiRequest<{ organizations: OrganizationListEntry[] }>('/api/getOrganizationIds', {
      query: { userId: uid ?? '', superadmin: String(super_admin) },
    });
    return organizations.map(toOrganizationSummary);
  },
);

/** Once per session: the role on the server user record decides the super-admin flag. */
export const checkSuperAdmin = createAsyncThunk<Role | null, void, WithUser>('user/checkSuperAdmin', async (_, { getState }) => {
  try {
    const { user } = await apiRequest<{ user: { role?: string } }>('/api/getUser', {
      method: 'POST',
      body: { userId: getState().user.uid },
    });
    return user.role === SUPER_ADMIN ? SUPER_ADMIN : null;
  } catch (error) {
    console.error('Could not load the user record for the super-admin check', error);
    return null;
  }
});
