import { connectFirestoreEmulator, getFirestore, type Firestore } from 'firebase/firestore';
import { publicConfig } from '@/lib/shared/config';
import { firebaseApp } from '@/lib/client/firebase/app';

let db: Firestore | undefined;

/** The browser Firestore SDK: read-only for clients (see firestore.rules). Import it only where it is used. */
export function clientDb(): Firestore {
  if (!db) {
    db = getFirestore(firebaseApp());
    if (publicConfig.useEmulators) {
      const [host = '127.0.0.1', port = '8080'] = publicConfig.firestoreEmulatorHost.split(':');
      connectFirestoreEmulator(db, host, Number(port));
    }
  }
  return db;
}
