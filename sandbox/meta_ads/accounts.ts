import type { SandboxAdAccount } from '@/sandbox/adData';

/** A Graph object as the fake reads and writes it. */
export type Json = Record<string, unknown>;

/** The ad accounts the sandbox's Meta login reaches (Graph's `/me/adaccounts` shape). */
export const META_AD_ACCOUNTS = [
  { id: 'act_101', account_id: '101', name: 'Acme Shoes (Meta)', currency: 'USD', timezone_name: 'America/New_York', account_status: 1 },
  { id: 'act_102', account_id: '102', name: 'Acme Outlet (Meta)', currency: 'USD', timezone_name: 'Europe/London', account_status: 1 },
];

/** A sandbox ad account as sandbox/adData.ts knows it (id without `act_`), for tests that compute expected figures. */
export function metaSandboxAccount(accountId: string): SandboxAdAccount | null {
  const account = META_AD_ACCOUNTS.find((candidate) => candidate.account_id === accountId.replace(/^act_/, ''));
  return account ? { id: account.account_id, name: account.name, currency: account.currency, timeZone: account.timezone_name } : null;
}
