import { classify, type ErrorTable, type PlatformError, type Refusal } from '@/lib/server/connectors/errors';

/**
 * Microsoft's refusals, one table for sign-in (the identity platform's OAuth `error`), the Customer and
 * Campaign Management calls and Reporting. The REST API puts its faults in `Errors` (AdApiFaultDetail) or
 * in `OperationErrors` / `BatchErrors` (ApiFaultDetail); their numeric codes say what kind of refusal it
 * is (Microsoft Advertising's operation error codes, docs/PLATFORMS.md, "Microsoft").
 */

interface MicrosoftRefusal extends Refusal {
  /** Microsoft's own messages, joined. */
  said: string;
}

interface AdApiError {
  Code?: number;
  ErrorCode?: string;
  Message?: string;
}

function microsoftRefusal(status: number, body: Record<string, unknown>): MicrosoftRefusal {
  const errors = [body.Errors, body.OperationErrors, body.BatchErrors].flatMap((list) =>
    Array.isArray(list) ? (list as AdApiError[]) : [],
  );
  return {
    status,
    codes: [
      ...errors.flatMap((error) => (error.Code === undefined ? [] : [error.Code])),
      ...(typeof body.error === 'string' ? [body.error] : []),
    ],
    said: errors
      .map((error) => error.Message)
      .filter(Boolean)
      .join(' '),
  };
}

/**
 * 105 InvalidCredentials, 109 AuthenticationTokenExpired and an `invalid_grant` from sign-in: only
 * signing in again helps (Microsoft also answers 105 to a wrong developer token, which is ours: it cannot be
 * told apart). 117 CallRateExceeded slows down. 2003 / 2035 (Reporting) and 106 UserIsNotAuthorized / 1102
 * CampaignServiceInvalidAccountId: this login cannot reach the account. 0 InternalError and 5xx pass later.
 */
export const MICROSOFT_ADS_ERRORS: ErrorTable<MicrosoftRefusal> = [
  {
    status: [401],
    codes: [105, 109, 'invalid_grant'],
    is: 'needs_reauth',
    says: 'Microsoft Advertising stopped accepting this login — reconnect.',
  },
  {
    status: [429],
    codes: [117],
    is: 'rate_limited',
    says: 'Microsoft Advertising is limiting how often we call it: it is tried again shortly.',
  },
  { codes: [2003, 2035], is: 'forbidden', says: 'This Microsoft Advertising login cannot report on the account any more.' },
  { status: [403], codes: [106, 1102], is: 'forbidden', says: 'This Microsoft Advertising login cannot reach the account any more.' },
  { status: ['5xx'], codes: [0], is: 'retryable', says: 'Microsoft Advertising could not answer. Try again in a minute.' },
  { is: 'invalid', says: ({ said }) => `Microsoft Advertising refused the request${said ? `: ${said}` : '.'}` },
];

/** A refused Microsoft call, classified by the table (a throttled one may say when to come back). */
export const microsoftAdsError = (status: number, body: Record<string, unknown>, retryAt?: Date): PlatformError =>
  classify('microsoft_ads', MICROSOFT_ADS_ERRORS, microsoftRefusal(status, body), retryAt);
