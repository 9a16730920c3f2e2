import { can, ROLE_RANK } from '@/lib/shared/permissions';

test('members read but do not manage the team or billing', () => {
  expect(can('member', 'member', 'read')).toBe(true);
  expect(can('member', 'member', 'delete')).toBe(false);
  expect(can('member', 'invitation', 'create')).toBe(false);
  expect(can('member', 'billing', 'update')).toBe(false);
});

test('admins manage the team but cannot delete the organization', () => {
  expect(can('admin', 'invitation', 'create')).toBe(true);
  expect(can('admin', 'member', 'delete')).toBe(true);
  expect(can('admin', 'organization', 'delete')).toBe(false);
});

test('owners and super admins may do everything', () => {
  expect(can('owner', 'organization', 'delete')).toBe(true);
  expect(can('super_admin', 'organization', 'delete')).toBe(true);
});

test('ranks order member < admin < owner < super admin', () => {
  expect(ROLE_RANK.member).toBeLessThan(ROLE_RANK.admin);
  expect(ROLE_RANK.admin).toBeLessThan(ROLE_RANK.owner);
  expect(ROLE_RANK.owner).toBeLessThan(ROLE_RANK.super_admin);
});

test('members connect and configure integrations; only owners and admins delete them', () => {
  for (const resource of ['source', 'destination', 'payment', 'app'] as const) {
    expect(can('member', resource, 'create')).toBe(true);
    expect(can('member', resource, 'update')).toBe(true);
    expect(can('member', resource, 'delete')).toBe(false);
    expect(can('admin', resource, 'delete')).toBe(true);
    expect(can('owner', resource, 'delete')).toBe(true);
  }
});
