import { ANALYTICS_EVENTS } from '@/lib/shared/events';
import { identifyUser, trackEvent } from '@/lib/server/analytics';
import { getOrCreateUserRecord, type UserRecord } from '@/lib/server/repos/users';

/** A person's user record, made at their first sign-in (and then announced to analytics once). */
export async function getOrSaveUser(record: Omit<UserRecord, 'role'>): Promise<{ user: UserRecord; created: boolean }> {
  const { user, created } = await getOrCreateUserRecord(record);
  if (created) {
    await identifyUser(user.uid, { user_id: user.uid, email: user.email, name: user.fullName });
    await trackEvent(user.uid, ANALYTICS_EVENTS.accountCreated, { email: user.email });
  }
  return { user, created };
}
