import { PLATFORMS, reusesLogin, type Integration, type Platform } from '@/lib/shared/integrations/platforms';

/**
 * The platforms whose source login may also be a conversion destination without a second consent:
 * their consent asks the same scopes for both kinds (checked on the server against the scopes table).
 */
export const REUSABLE_LOGIN_PLATFORMS: readonly Platform[] = PLATFORMS.filter(reusesLogin);

/** The sources whose login may be offered for a new conversion destination: reusable and working. */
export const reusableSources = (sources: readonly Integration[]) =>
  sources.filter((source) => REUSABLE_LOGIN_PLATFORMS.includes(source.platform) && source.status === 'active');

/** The sources whose login is offered as a new destination: reusable, working, and without a destination on it yet. */
export const offeredLogins = (sources: readonly Integration[], destinations: readonly Integration[]) =>
  reusableSources(sources).filter((source) => !destinations.some((destination) => destination.loginSourceId === source.id));
