import { getApp, getApps, initializeApp, type FirebaseApp } from 'firebase/app';
import { publicConfig } from '@/lib/shared/config';

export function firebaseApp(): FirebaseApp {
  return getApps().length ? getApp() : initializeApp(publicConfig.firebase);
}
