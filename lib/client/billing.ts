import { apiRequest, ApiRequestError } from '@/lib/client/apiClient';
import { publicConfig } from '@/lib/shared/config';

/** docs/PRODUCT.md §7 messages of the billing calls. */
export const BILLING_MESSAGES = {
  customer: 'Failed to create customer',
  sessionValidity: 'Failed to check for checkout session validity',
} as const;

const billing = (path: string) => `${publicConfig.billingApiUrl}/billing${path}`;

/** POST {billing api}/billing/customer; on failure 'Failed to create customer' plus the server's text. */
export async function createBillingCustomer(input: { email: string; organizationId: string; userId: string }): Promise<string> {
  try {
    const { customerId } = await apiRequest<{ customerId: string }>(billing('/customer'), { method: 'POST', body: input });
    return customerId;
  } catch (error) {
    const detail = error instanceof ApiRequestError ? `: ${error.message}` : '';
    throw new Error(`${BILLING_MESSAGES.customer}${detail}`);
  }
}

/** GET {billing api}/billing/session-validity/{organization id}/{checkout session id}. */
export async function isCheckoutSessionValid(orgId: string, sessionId: string): Promise<boolean> {
  try {
    const { isValid } = await apiRequest<{ isValid: boolean }>(
      billing(`/session-validity/${encodeURIComponent(orgId)}/${encodeURIComponent(sessionId)}`),
    );
    return isValid;
  } catch {
    throw new Error(BILLING_MESSAGES.sessionValidity);
  }
}

/** Starts Stripe Checkout for a plan (the server records 'Plan Selected') and leaves for it. */
export async function startCheckout(organizationId: string, plan: string): Promise<void> {
  const { url } = await apiRequest<{ url: string }>('/api/billing/checkout', { method: 'POST', body: { organizationId, plan } });
  window.location.assign(url);
}

export async function openBillingPortal(organizationId: string): Promise<void> {
  const { url } = await apiRequest<{ url: string }>('/api/billing/portal', { method: 'POST', body: { organizationId } });
  window.location.assign(url);
}
