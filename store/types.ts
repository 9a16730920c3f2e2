/** The page-load fetch status of docs/PRODUCT.md §4. */
export type FetchStatus = 'idle' | 'pending' | 'success' | 'error';
