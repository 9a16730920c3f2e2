import { render, screen } from '@testing-library/react';
import { CheckoutSuccessPage } from '@/components/billing/CheckoutResultPage';
import { isCheckoutSessionValid } from '@/lib/client/billing';
import type { OrganizationDocument } from '@/lib/shared/schemas/organization';

jest.mock('next/router', () => ({ useRouter: () => ({ query: { orgId: 'acme', session_id: 'cs_test_1' }, isReady: true }) }));
jest.mock('@/lib/client/billing', () => ({ isCheckoutSessionValid: jest.fn() }));
jest.mock('@/store/hooks', () => ({ useAppDispatch: () => jest.fn() }));
jest.mock('@/store/thunks', () => ({ fetchOrganization: jest.fn() }));

let mockSubscription: OrganizationDocument['subscription'] = null;
jest.mock('@/components/organizations/useOrganizationContext', () => ({
  useOrganizationContext: () => ({
    orgId: 'acme',
    document: { organization_id: 'acme', subscription: mockSubscription },
    role: 'owner',
    user: {},
  }),
}));

const checked = isCheckoutSessionValid as jest.MockedFunction<typeof isCheckoutSessionValid>;
const active = { status: 'active' as const, plan: 'growth', current_period_end: null, past_due_since: null };

beforeEach(() => {
  mockSubscription = null;
  checked.mockReset();
});

test('while checking: a spinner and nothing else', async () => {
  checked.mockReturnValue(new Promise(() => undefined));
  render(<CheckoutSuccessPage />);
  expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Checking your payment');
  expect(screen.getByRole('status', { name: 'Checking your payment' })).toBeInTheDocument();
  expect(screen.queryByText(/confirmed|could not find/i)).not.toBeInTheDocument();
});

test('a checkout that is not found says so, and only that', async () => {
  checked.mockResolvedValue(false);
  render(<CheckoutSuccessPage />);
  expect(await screen.findByRole('heading', { level: 1, name: 'Checkout not found' })).toBeInTheDocument();
  expect(screen.getByRole('alert')).toHaveTextContent('We could not find a completed checkout for this organization.');
  expect(screen.queryByText(/confirmed|thank you|activating/i)).not.toBeInTheDocument();
  expect(screen.getByRole('link', { name: 'Back to the plans' })).toHaveAttribute('href', '/acme/subscription');
});

test('a paid checkout whose subscription is active is confirmed, with no "not found"', async () => {
  mockSubscription = active;
  checked.mockResolvedValue(true);
  render(<CheckoutSuccessPage />);
  expect(await screen.findByRole('heading', { level: 1, name: 'Subscription confirmed' })).toBeInTheDocument();
  expect(screen.getByText("Your subscription is active. Your organization's pages are open.")).toBeInTheDocument();
  expect(screen.queryByText(/could not find|back to the plans/i)).not.toBeInTheDocument();
});

test('a paid checkout waiting for its webhook is not called confirmed yet', async () => {
  checked.mockResolvedValue(true);
  render(<CheckoutSuccessPage />);
  expect(await screen.findByRole('heading', { level: 1, name: 'Payment received' })).toBeInTheDocument();
  expect(screen.getByText(/Activating your subscription/)).toBeInTheDocument();
  expect(screen.queryByText(/confirmed|could not find/i)).not.toBeInTheDocument();
});
