import { fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import EditMappingForm from '@/components/conversions/EditMappingForm';
import type { Conversion } from '@/lib/shared/conversions/conversion';
import { ApiRequestError } from '@/lib/client/apiClient';
import { makeStore } from '@/store/index';

// A mapping the destination cannot use is refused by the server (400 with fieldErrors): the edit form
// shows why, under the identifiers or, for a warehouse's column it does not show, above its buttons.
// Only the network call is stubbed: errors are the client's own ApiRequestError.
jest.mock('@/lib/client/apiClient', () => ({ ...jest.requireActual('@/lib/client/apiClient'), apiRequest: jest.fn() }));
const { apiRequest } = jest.requireMock('@/lib/client/apiClient') as { apiRequest: jest.Mock };

const conversion = {
  id: 'c1',
  name: 'Leads',
  source: { type: 'app', appId: 'a1' },
  destination: { destinationId: 'd1', platform: 'microsoft_ads', accountId: '301', targetId: '8001', targetName: 'Offline purchase' },
  mapping: { events: [], value: { mode: 'event' }, identifiers: ['email', 'clickIds'] },
} as unknown as Conversion;

async function saveRefusedWith(fieldErrors: Record<string, string[]>) {
  apiRequest.mockRejectedValue(new ApiRequestError(400, 'Check the highlighted fields', fieldErrors, 'invalid'));
  render(
    <Provider store={makeStore()}>
      <EditMappingForm orgId="acme" conversion={conversion} onDone={jest.fn()} />
    </Provider>,
  );
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
}

afterEach(() => apiRequest.mockReset());

test('a refused identifiers choice is shown under the identifiers', async () => {
  const message = 'Microsoft Advertising needs Click ids (gclid, fbclid/fbc/fbp, msclkid): it matches by the click. Send at least one.';
  await saveRefusedWith({ 'mapping.identifiers': [message] });
  expect(await screen.findByText(message)).toBeVisible();
});

test('a refused column the form does not show is said above its buttons', async () => {
  const message = 'Microsoft Advertising needs a column for Microsoft click id (msclkid): it matches by the click. Map one.';
  await saveRefusedWith({ 'source.columns.msclkid': [message] });
  expect(await screen.findByRole('alert')).toHaveTextContent(message);
});
