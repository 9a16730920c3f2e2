import type { AppDispatch } from '@/store/index';
import { userSignedOut } from '@/store/userSlice';

/** Signs out of the provider and forgets everything stored about the user. */
export async function signOutEverywhere(dispatch: AppDispatch): Promise<void> {
  try {
    const [{ signOut }, { clientAuth }] = await Promise.all([import('firebase/auth'), import('@/lib/firebase/auth')]);
    await signOut(clientAuth());
  } finally {
    dispatch(userSignedOut());
  }
}
