import createWebStorage from 'redux-persist/lib/storage/createWebStorage';
import type { WebStorage } from 'redux-persist/es/types';

// On the server there is no localStorage: persist into nothing, so server rendering still renders.
const noopStorage: WebStorage = {
  getItem: async () => null,
  setItem: async () => undefined,
  removeItem: async () => undefined,
};

export const persistStorage: WebStorage = typeof window === 'undefined' ? noopStorage : createWebStorage('local');

/** The selected organization also has a local-storage entry of its own (docs/PRODUCT.md §4). */
export const ORG_ID_STORAGE_KEY = 'orgId';
