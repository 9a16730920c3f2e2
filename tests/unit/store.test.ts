import { persistStore, type Persistor } from 'redux-persist';
import { flowCleared, flowStarted } from '@/store/flowSlice';
import { makeStore } from '@/store/index';
import { fetchOrganization } from '@/store/thunks';
import { organizationSelected, userSignedIn, userSignedOut } from '@/store/userSlice';

beforeEach(() => window.localStorage.clear());

const alice = { uid: 'alice', email: 'alice@example.test', displayName: null, photoURL: null };

test('the selected organization also gets its own local-storage entry, removed on sign-out', () => {
  const store = makeStore();
  store.dispatch(userSignedIn(alice));
  store.dispatch(organizationSelected({ orgId: 'acme' }));
  expect(window.localStorage.getItem('orgId')).toBe('acme');
  store.dispatch(userSignedOut());
  expect(window.localStorage.getItem('orgId')).toBeNull();
});

function rehydrated(store: ReturnType<typeof makeStore>) {
  return new Promise<Persistor>((resolve) => {
    const persistor: Persistor = persistStore(store, null, () => resolve(persistor));
  });
}

test('the user and the flow keys are persisted to local storage, and come back in a new store', async () => {
  const first = makeStore();
  const persistor = await rehydrated(first);
  first.dispatch(userSignedIn(alice));
  first.dispatch(flowStarted({ storedFrom: 'source', storedType: 'google', sourceKey: 'google-ads' }));
  await persistor.flush();

  const second = makeStore();
  await rehydrated(second);
  expect(second.getState().user).toMatchObject({ uid: 'alice', isAuthenticated: true });
  expect(second.getState().flow).toEqual({ storedFrom: 'source', storedType: 'google', sourceKey: 'google-ads' });
});

test('clearing the flow forgets all three keys', () => {
  const store = makeStore();
  store.dispatch(flowStarted({ storedFrom: 'source', storedType: 'meta', sourceKey: 'k' }));
  store.dispatch(flowCleared());
  expect(store.getState().flow).toEqual({ storedFrom: null, storedType: null, sourceKey: null });
});

test('the organization load status goes idle → pending → error, and a new selection resets it', () => {
  const store = makeStore();
  expect(store.getState().organization.status).toBe('idle');
  store.dispatch(fetchOrganization.pending('request', 'acme'));
  expect(store.getState().organization.status).toBe('pending');
  store.dispatch(fetchOrganization.rejected(new Error('boom'), 'request', 'acme', 'failed'));
  expect(store.getState().organization).toEqual({ document: null, role: null, status: 'error', failure: 'failed' });
  store.dispatch(organizationSelected({ orgId: 'other' }));
  expect(store.getState().organization.status).toBe('idle');
});
