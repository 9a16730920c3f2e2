/** The page-load fetch status of SPEC.md §4. */
export type FetchStatus = 'idle' | 'pending' | 'success' | 'error';
