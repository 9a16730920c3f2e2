import { combineSlices, configureStore, createListenerMiddleware } from '@reduxjs/toolkit';
import { FLUSH, PAUSE, PERSIST, persistReducer, PURGE, REGISTER, REHYDRATE } from 'redux-persist';
import { identifyWithOrganization } from '@/lib/client/analytics';
import { api } from '@/store/api';
import flowSlice from '@/store/flowSlice';
import organizationSlice from '@/store/organizationSlice';
import { ORG_ID_STORAGE_KEY, persistStorage } from '@/store/storage';
import { fetchOrganization } from '@/store/thunks';
import userSlice, { organizationSelected, userSignedOut } from '@/store/userSlice';

const rootReducer = combineSlices(userSlice, organizationSlice, flowSlice, api);

export type RootState = ReturnType<typeof rootReducer>;

const persistConfig = {
  key: 'signalbridge',
  version: 1,
  storage: persistStorage,
  // The user and the flow keys survive a reload; the organization document is fetched again.
  whitelist: [userSlice.reducerPath, flowSlice.reducerPath],
};

function orgIdStorageListener() {
  const listener = createListenerMiddleware();
  listener.startListening({
    actionCreator: organizationSelected,
    effect: ({ payload }) => window.localStorage.setItem(ORG_ID_STORAGE_KEY, payload.orgId),
  });
  // Customer.io learns which organization the user is working in whenever one is loaded.
  listener.startListening({
    actionCreator: fetchOrganization.fulfilled,
    effect: ({ payload }, { getState }) => {
      const { uid } = (getState() as RootState).user;
      if (uid) identifyWithOrganization(uid, payload.document.organization_id);
    },
  });
  listener.startListening({
    actionCreator: userSignedOut,
    effect: (_action, { dispatch }) => {
      window.localStorage.removeItem(ORG_ID_STORAGE_KEY);
      // Nothing cached for one user may show for the next.
      dispatch(api.util.resetApiState());
    },
  });
  return listener.middleware;
}

/** A new store: one per browser session, one per server render, one per test. */
export function makeStore(preloadedState?: Partial<RootState>) {
  return configureStore({
    reducer: persistReducer(persistConfig, rootReducer),
    preloadedState: preloadedState as never,
    middleware: (getDefault) => {
      const middleware = getDefault({
        serializableCheck: { ignoredActions: [FLUSH, REHYDRATE, PAUSE, PERSIST, PURGE, REGISTER] },
      });
      const withApi = middleware.concat(api.middleware);
      return typeof window === 'undefined' ? withApi : withApi.concat(orgIdStorageListener());
    },
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
