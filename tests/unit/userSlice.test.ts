import { checkSuperAdmin } from '@/store/thunks';
import userSlice, { initialUserState, organizationSelected, userSignedIn, userSignedOut } from '@/store/userSlice';

const reducer = userSlice.reducer;
const alice = { uid: 'alice', email: 'alice@example.test', displayName: 'Alice', photoURL: 'https://example.test/a.png' };

test('signing in clears any previous user before setting the new one', () => {
  let state = reducer(undefined, userSignedIn({ ...alice, uid: 'bob', email: 'bob@example.test' }));
  state = reducer(state, organizationSelected({ orgId: 'bobs-org', organization: { name: 'Bob Inc', logo: null } }));
  state = reducer(state, checkSuperAdmin.fulfilled('super_admin', 'request'));

  state = reducer(state, userSignedIn(alice));

  expect(state).toEqual({
    ...initialUserState,
    id: 'alice',
    uid: 'alice',
    email: 'alice@example.test',
    displayName: 'Alice',
    fullName: 'Alice',
    photoURL: 'https://example.test/a.png',
    profileUrl: 'https://example.test/a.png',
    isAuthenticated: true,
  });
});

test('signing out resets every field', () => {
  let state = reducer(undefined, userSignedIn(alice));
  state = reducer(state, organizationSelected({ orgId: 'acme' }));
  state = reducer(state, checkSuperAdmin.fulfilled('super_admin', 'request'));
  expect(reducer(state, userSignedOut())).toEqual(initialUserState);
});

test('the super-admin check sets the flag from the role and marks itself done', () => {
  const admin = reducer(reducer(undefined, userSignedIn(alice)), checkSuperAdmin.fulfilled('super_admin', 'request'));
  expect(admin).toMatchObject({ role: 'super_admin', super_admin: true, checkedForSuperAdmin: true });
  const regular = reducer(reducer(undefined, userSignedIn(alice)), checkSuperAdmin.fulfilled(null, 'request'));
  expect(regular).toMatchObject({ role: null, super_admin: false, checkedForSuperAdmin: true });
});
