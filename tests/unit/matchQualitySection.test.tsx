import { render, screen, within } from '@testing-library/react';
import { Provider } from 'react-redux';
import MatchQualitySection from '@/components/conversions/MatchQualitySection';
import type { ConversionQuality, MatchCounts } from '@/lib/shared/conversions/quality';
import { ApiRequestError } from '@/lib/client/apiClient';
import { makeStore } from '@/store/index';

// The section as a member sees it, with the API answer stubbed at the client's one network call.
// Only the network call is stubbed: errors are the client's own ApiRequestError.
jest.mock('@/lib/client/apiClient', () => ({ ...jest.requireActual('@/lib/client/apiClient'), apiRequest: jest.fn() }));
const { apiRequest } = jest.requireMock('@/lib/client/apiClient') as { apiRequest: jest.Mock };

const counts = (events: number, keys: Partial<MatchCounts['keys']> = {}): MatchCounts => ({
  events,
  keys: { email: 0, phone: 0, address: 0, clickId: 0, ipUserAgent: 0, consent: 0, ...keys },
});

const answer = (overrides: Partial<ConversionQuality>): ConversionQuality => ({
  platform: 'meta_ads',
  keys: ['email', 'phone', 'address', 'clickId', 'ipUserAgent'],
  day: counts(0),
  week: counts(0),
  advice: [],
  platformMeasure: { status: 'not_reported', message: 'Meta reports no Event Match Quality for this pixel yet.' },
  platformMeasureReadAt: null,
  ...overrides,
});

function show() {
  render(
    <Provider store={makeStore()}>
      <MatchQualitySection orgId="acme" id="c1" platform="Meta Ads" />
    </Provider>,
  );
  return screen.getByRole('region', { name: 'Match quality' });
}

afterEach(() => apiRequest.mockReset());

test('loading, then the empty state and "not reported yet" when nothing was sent this week', async () => {
  apiRequest.mockResolvedValue(answer({}));
  const section = show();
  expect(within(section).getByRole('status', { name: 'Loading match quality' })).toBeInTheDocument();
  expect(await within(section).findByTestId('quality-empty')).toHaveTextContent('No events in the last 7 days yet');
  expect(within(section).getByText(/Not reported yet\. Meta reports no Event Match Quality/)).toBeInTheDocument();
  expect(apiRequest).toHaveBeenCalledWith('/api/orgs/acme/conversions/c1/quality', expect.objectContaining({ method: 'GET' }));
});

test("each key's share over the day and the week, the advice, and Meta's Event Match Quality beside it", async () => {
  apiRequest.mockResolvedValue(
    answer({
      day: counts(10, { email: 10, phone: 4 }),
      week: counts(50, { email: 45, phone: 29 }),
      advice: [{ key: 'phone', missingPercent: 42, text: "42 % of events have no phone; add the form's phone field." }],
      platformMeasure: {
        status: 'reported',
        kind: 'event_scores',
        events: [
          {
            eventName: 'Lead',
            score: 6.2,
            keys: [{ identifier: 'ip_address', label: 'IP address', percentage: 99.9 }],
            diagnostics: [
              {
                name: 'Invalid phone values',
                solution: 'Normalise ph as Meta documents it.',
                percentage: 10,
                text: '10 % of the Lead events Meta received had a phone it could not use.',
              },
            ],
          },
        ],
      },
    }),
  );
  const section = show();
  const table = await within(section).findByRole('table', { name: 'Share of events carrying each match key' });
  expect(within(table).getByRole('row', { name: /^Phone/ })).toHaveTextContent('40 % (4 of 10)58 % (29 of 50)');
  expect(within(section).getByTestId('quality-advice')).toHaveTextContent("42 % of events have no phone; add the form's phone field.");
  const meta = within(section).getByRole('table', { name: "Event Match Quality of this conversion's events, as Meta Ads reports it" });
  expect(within(meta).getByRole('row', { name: /Lead/ })).toHaveTextContent('6.2 / 10');
  expect(meta).toHaveTextContent('IP address 99.9 %');
  // Meta's diagnostic in a marketer's words; its developer advice is not shown.
  expect(meta).toHaveTextContent('10 % of the Lead events Meta received had a phone it could not use.');
  expect(meta).not.toHaveTextContent('Meta documents it');
  // Whose events the score covers.
  expect(section).toHaveTextContent('scores each event name of the pixel for all its senders together');
});

test("Google's diagnostics of the last request, in words", async () => {
  apiRequest.mockResolvedValue(
    answer({
      platform: 'google_ads',
      week: counts(3, { email: 3 }),
      day: counts(3, { email: 3 }),
      platformMeasure: {
        status: 'reported',
        kind: 'request_diagnostics',
        requestId: 'req-1',
        sentAt: null,
        requestStatus: 'PARTIAL_SUCCESS',
        records: 2,
        errors: [{ reason: 'PROCESSING_ERROR_REASON_DENIED_CONSENT', records: 1 }],
        warnings: [],
      },
    }),
  );
  const section = show();
  expect(await within(section).findByText(/partly processed/)).toBeInTheDocument();
  expect(section).toHaveTextContent('Last request: partly processed, 2 events taken.');
  expect(section).toHaveTextContent('1 refused: denied consent');
});

test('a failed load says so', async () => {
  apiRequest.mockRejectedValue(new ApiRequestError(404, 'Conversion not found.', {}, 'not_found'));
  const section = show();
  expect(await within(section).findByRole('alert')).toHaveTextContent('Conversion not found.');
});
