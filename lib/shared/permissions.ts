/**
 * Who may do what inside an organization. Handlers enforce it; the UI reads it only to hide
 * controls a user may not use.
 */
export const ORGANIZATION_ROLES = ['owner', 'admin', 'member'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

/** The platform role: may do anything anywhere. */
export const SUPER_ADMIN = 'super_admin';
export type Role = OrganizationRole | typeof SUPER_ADMIN;

export type Action = 'read' | 'create' | 'update' | 'delete';
export type Resource =
  'organization' | 'member' | 'invitation' | 'billing' | 'source' | 'destination' | 'connection' | 'conversion' | 'payment' | 'app';

const ALL: readonly Action[] = ['read', 'create', 'update', 'delete'];
const READ: readonly Action[] = ['read'];

const INTEGRATIONS = {
  source: ALL,
  destination: ALL,
  connection: ALL,
  conversion: ALL,
  payment: ALL,
  app: ALL,
} as const;

// Members connect and configure; deleting what others may rely on is for owners and admins.
const MEMBER_INTEGRATIONS: Record<keyof typeof INTEGRATIONS, readonly Action[]> = {
  source: ['read', 'create', 'update'],
  destination: ['read', 'create', 'update'],
  connection: ['read', 'create', 'update'],
  conversion: ['read', 'create', 'update'],
  payment: ['read', 'create', 'update'],
  app: ['read', 'create', 'update'],
};

const table: Record<OrganizationRole, Record<Resource, readonly Action[]>> = {
  owner: { organization: ALL, member: ALL, invitation: ALL, billing: ALL, ...INTEGRATIONS },
  admin: { organization: ['read', 'update'], member: ALL, invitation: ALL, billing: ALL, ...INTEGRATIONS },
  member: { organization: READ, member: READ, invitation: READ, billing: READ, ...MEMBER_INTEGRATIONS },
};

/** Ranks decide who may remove or demote whom: nobody acts on a higher rank than their own. */
export const ROLE_RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3, super_admin: 4 };

export function can(role: Role, resource: Resource, action: Action): boolean {
  if (role === SUPER_ADMIN) return true;
  return table[role][resource].includes(action);
}

export function isOrganizationRole(value: unknown): value is OrganizationRole {
  return typeof value === 'string' && (ORGANIZATION_ROLES as readonly string[]).includes(value);
}

/** Who may see a visitor's IP address and browser in clear in the row debugger (each reveal is noted). */
export function canRevealPersonalData(role: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK.admin;
}

/** Nobody removes or demotes someone of a higher rank than their own. */
export function canManageMember(actor: Role, target: OrganizationRole): boolean {
  return can(actor, 'member', 'delete') && ROLE_RANK[actor] >= ROLE_RANK[target];
}

/** Nobody hands out a role above their own. */
export function canAssignRole(actor: Role, role: OrganizationRole): boolean {
  return can(actor, 'member', 'update') && ROLE_RANK[actor] >= ROLE_RANK[role];
}
