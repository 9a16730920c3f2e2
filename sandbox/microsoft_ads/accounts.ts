import type { SandboxAdAccount } from '@/sandbox/adData';

/** The sandbox Microsoft login's accounts and offline conversion goals (Customer Management's shapes). */

/** TimeZone is Microsoft's TimeZoneType enum (not an IANA name): each account's day is its own time zone's day. */
export const MICROSOFT_ACCOUNTS = [
  {
    Id: 301,
    Name: 'Acme Shoes (Microsoft)',
    Number: 'F1000301',
    ParentCustomerId: 9001,
    CurrencyCode: 'USD',
    AccountLifeCycleStatus: 'Active',
    TimeZone: 'EasternTimeUSCanada',
  },
  {
    Id: 302,
    Name: 'Acme Outlet (Microsoft)',
    Number: 'F1000302',
    ParentCustomerId: 9001,
    CurrencyCode: 'USD',
    AccountLifeCycleStatus: 'Active',
    TimeZone: 'PacificTimeUSCanadaTijuana',
  },
];
export type MicrosoftAccount = (typeof MICROSOFT_ACCOUNTS)[number];
/** The IANA zones of the sandbox accounts' TimeZone values (Microsoft keeps its own names). */
const IANA_TIME_ZONES: Record<string, string> = {
  EasternTimeUSCanada: 'America/New_York',
  PacificTimeUSCanadaTijuana: 'America/Los_Angeles',
};
/** An account as sandbox/adData.ts keeps it: its figures are days of its own time zone. */
export const adAccountOf = (account: MicrosoftAccount): SandboxAdAccount => ({
  id: String(account.Id),
  name: account.Name,
  currency: account.CurrencyCode,
  timeZone: IANA_TIME_ZONES[account.TimeZone] ?? 'America/Los_Angeles',
});
export const MICROSOFT_GOALS = [
  { Id: 8001, Name: 'Offline purchase', Type: 'OfflineConversion', Status: 'Active' },
  { Id: 8002, Name: 'Qualified lead', Type: 'OfflineConversion', Status: 'Active' },
];
