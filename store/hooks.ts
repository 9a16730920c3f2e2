import { useDispatch, useSelector, useStore } from 'react-redux';
import type { AppDispatch, AppStore, RootState } from '@/store/index';

export const useAppDispatch = useDispatch.withTypes<AppDispatch>();
export const useAppSelector = useSelector.withTypes<RootState>();
export const useAppStore = useStore.withTypes<AppStore>();

/** True once the persisted state has been read back (always false during server rendering). */
export const useRehydrated = () =>
  useAppSelector((state) => (state as { _persist?: { rehydrated: boolean } })._persist?.rehydrated ?? false);
