import { connectAuthEmulator, getAuth, type Auth, type User } from 'firebase/auth';
import { publicConfig } from '@/lib/shared/config';
import { firebaseApp } from '@/lib/client/firebase/app';

/** Who the provider says is signed in: what the store keeps of a provider's user. */
export interface ProviderUser {
  uid: string;
  email: string | null;
  displayName: string | null;
  photoURL: string | null;
}

let auth: Auth | undefined;

/** The browser Auth SDK, pointed at the emulator when NEXT_PUBLIC_USE_EMULATORS=1. */
export function clientAuth(): Auth {
  if (!auth) {
    auth = getAuth(firebaseApp());
    if (publicConfig.useEmulators) {
      connectAuthEmulator(auth, publicConfig.authEmulatorUrl, { disableWarnings: true });
    }
  }
  return auth;
}

export function toProviderUser(user: User): ProviderUser {
  return { uid: user.uid, email: user.email, displayName: user.displayName, photoURL: user.photoURL };
}
