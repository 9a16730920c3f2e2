import type { AdAccount, ConversionTarget, OAuthPlatform, Platform } from '@/lib/integrations/platforms';
import {
  bigQueryProjects,
  googleAdsAccounts,
  googleAuthorizeUrl,
  googleConversionActions,
  googleExchangeCode,
  googleRefresh,
  googleServiceAccountToken,
  googleUserEmail,
  type ServiceAccountKey,
} from '@/lib/server/platforms/google';
import { PlatformError } from '@/lib/server/platforms/http';
import { metaAdAccounts, metaAuthorizeUrl, metaExchangeCode, metaPixels, metaTokenUsable, metaUserName } from '@/lib/server/platforms/meta';
import {
  microsoftAccounts,
  microsoftAuthorizeUrl,
  microsoftConversionGoals,
  microsoftExchangeCode,
  microsoftRefresh,
  microsoftUserName,
} from '@/lib/server/platforms/microsoft';
import { checkMixpanel, type MixpanelCredentials } from '@/lib/server/platforms/mixpanel';

/** What is sealed in `credentials/{id}`: per platform, only what it takes to get an access token. */
export type Credential =
  | { type: 'google_oauth'; refreshToken: string }
  | { type: 'google_service_account'; key: ServiceAccountKey }
  | { type: 'meta'; accessToken: string; expiresAt: number | null }
  | { type: 'microsoft'; refreshToken: string }
  | ({ type: 'mixpanel' } & MixpanelCredentials)
  | { type: 'stripe'; apiKey: string };

export function authorizeUrl(platform: OAuthPlatform, state: string, redirectUri: string): string {
  if (platform === 'meta_ads') return metaAuthorizeUrl(state, redirectUri);
  if (platform === 'microsoft_ads') return microsoftAuthorizeUrl(state, redirectUri);
  return googleAuthorizeUrl(platform, state, redirectUri);
}

/** Finishes a consent: trades the code for lasting credentials and names the login. */
export async function exchangeCode(platform: OAuthPlatform, code: string, redirectUri: string): Promise<{ credential: Credential; accountName: string }> {
  if (platform === 'meta_ads') {
    const token = await metaExchangeCode(code, redirectUri);
    return { credential: { type: 'meta', ...token }, accountName: await metaUserName(token.accessToken) };
  }
  if (platform === 'microsoft_ads') {
    const tokens = await microsoftExchangeCode(code, redirectUri);
    return { credential: { type: 'microsoft', refreshToken: tokens.refreshToken }, accountName: (await microsoftUserName(tokens.accessToken)).name };
  }
  const tokens = await googleExchangeCode(code, redirectUri);
  if (!tokens.refreshToken) {
    throw new PlatformError(platform, 400, 'Google did not grant offline access. Connect again and allow every permission.');
  }
  return { credential: { type: 'google_oauth', refreshToken: tokens.refreshToken }, accountName: await googleUserEmail(tokens.accessToken) };
}

export interface PlatformSession {
  accessToken: string;
  /** Set when the platform rotated the credential; it must be saved. */
  rotated: Credential | null;
}

/** An access token for a stored credential; throws a PlatformError with reauth when it is dead. */
export async function openSession(credential: Credential): Promise<PlatformSession> {
  switch (credential.type) {
    case 'google_oauth':
      return { accessToken: await googleRefresh(credential.refreshToken), rotated: null };
    case 'google_service_account':
      return { accessToken: await googleServiceAccountToken(credential.key), rotated: null };
    case 'meta':
      return { accessToken: metaTokenUsable(credential), rotated: null };
    case 'microsoft': {
      const tokens = await microsoftRefresh(credential.refreshToken);
      const rotated = tokens.refreshToken && tokens.refreshToken !== credential.refreshToken ? { type: 'microsoft' as const, refreshToken: tokens.refreshToken } : null;
      return { accessToken: tokens.accessToken, rotated };
    }
    case 'mixpanel':
      await checkMixpanel(credential);
      return { accessToken: '', rotated: null };
    case 'stripe':
      return { accessToken: credential.apiKey, rotated: null };
  }
}

/** The accounts a login can reach: ad accounts, or BigQuery projects. */
export async function listAccounts(platform: Platform, accessToken: string): Promise<AdAccount[]> {
  switch (platform) {
    case 'google_ads':
      return googleAdsAccounts(accessToken);
    case 'meta_ads':
      return metaAdAccounts(accessToken);
    case 'microsoft_ads':
      return microsoftAccounts(accessToken);
    case 'bigquery':
      return bigQueryProjects(accessToken);
    case 'mixpanel':
      return [];
  }
}

/** Where conversions of an ad account can go: conversion actions, pixels or goals. */
export async function listTargets(platform: Platform, accessToken: string, account: AdAccount): Promise<ConversionTarget[]> {
  if (platform === 'google_ads') return googleConversionActions(accessToken, account);
  if (platform === 'meta_ads') return metaPixels(accessToken, account);
  if (platform === 'microsoft_ads') return microsoftConversionGoals(accessToken, account);
  return [];
}
