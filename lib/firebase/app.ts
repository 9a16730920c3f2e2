import { getApp, getApps, initializeApp, type FirebaseApp } from 'firebase/app';
import { publicConfig } from '@/lib/config';

export function firebaseApp(): FirebaseApp {
  return getApps().length ? getApp() : initializeApp(publicConfig.firebase);
}
